import ChatProtocol

extension ChatMessage {
    /// The message as `--json` prints it: without `peer`, this device's id, which a script has no
    /// use for and which must not end up in a log or a paste (issue 23, finding 12).
    var withoutPeer: ChatMessage {
        var printed = self
        printed.peer = nil
        return printed
    }
}
