/// Account names, passwords, topics and modes (PROTOCOL.md sections 7 and 8), shared by server and
/// client so that a client can refuse locally what the server would refuse.
extension ChatValidation {
    /// Account names follow the nick rules and compare case-insensitively (``nickKey(_:)``).
    public static func isValidAccountName(_ name: String) -> Bool {
        isValidNick(name)
    }

    /// True for 8 to 256 bytes of UTF-8 (any characters: a passphrase may hold spaces).
    public static func isAcceptablePassword(_ password: String) -> Bool {
        ChatLimits.passwordBytes.contains(password.utf8.count)
    }

    /// The topic as the server stores and relays it: one line (LF and TAB become spaces, every
    /// other control character is removed), at most ``ChatLimits/maxTopicBytes`` bytes. Empty
    /// clears the topic. Throws ``ChatValidationError/textTooLarge`` (`too-large`).
    public static func sanitizeTopic(_ topic: String) throws(ChatValidationError) -> String {
        let oneLine = topic.utf8.contains { $0 == ASCII.lineFeed || $0 == ASCII.tab }
            ? String(topic.unicodeScalars.map { $0 == "\n" || $0 == "\t" ? " " : Character($0) })
            : topic
        let sanitized = removingControlCharacters(from: oneLine)
        guard sanitized.utf8.count <= ChatLimits.maxTopicBytes else { throw .textTooLarge }
        return sanitized
    }
}
