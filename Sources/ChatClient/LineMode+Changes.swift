import ChatClientKit
import ChatProtocol

/// `/edit`, `/redact`, `/react`, `/unreact` and `/reply` in line mode (PROTOCOL.md section 15):
/// about the messages of the current room it printed (``SeenMessages``), by their numbers.
extension LineMode {
    func change(_ request: MessageRequest) {
        let target = MessageTarget.room(currentRoom)
        let id = ChatSession.randomPeerID()
        let ownPending = sent.values.contains { $0.messageType == .msg && $0.room == currentRoom }
        switch MessageReferences.message(for: request, in: target, shown: seenMessages.shown(in: target), features: session.features, id: id,
                                         ownPending: ownPending) {
        case .failure(.message(let text)): complain(text)
        case .failure(.usage): complain("no such message")
        case .success(let message):
            guard self.request(message) else { return }
            // A reply is a message: echoed at its ack. A change is said at its ack.
            if message.messageType == .msg || message.messageType == .dm { sent[id] = message } else { sentChanges[id] = message }
        }
    }

    /// `/search WORDS` in the current room on a server that searches: `found` is printed.
    func searchServer(_ words: String) -> Bool {
        guard session.features.contains(ServerFeature.search) else { return false }
        guard (try? ChatValidation.searchQuery(words)) != nil else {
            complain(ClientCommands.searchRule)
            return true
        }
        request(ChatMessage(type: MessageType.search.rawValue, text: words, room: currentRoom))
        return true
    }

    /// What line mode remembers of a message or change it prints: the numbers later commands
    /// may name, and which of them were removed.
    func remember(_ message: ChatMessage) {
        let me = session.nick
        switch message.messageType {
        case .msg, .dm:
            guard let seq = message.seq else { return }
            let own = ChatValidation.nickKey(message.sender) == ChatValidation.nickKey(me)
            seenMessages.record(ShownMessage(seq: seq, isOwn: own, isRedacted: message.redacted == true),
                                in: SeenMessages.target(of: message, ownNick: me))
        case .redact:
            if let ref = message.ref { seenMessages.redacted(ref, in: SeenMessages.target(of: message, ownNick: me)) }
        default:
            break
        }
    }

    /// The `ack` of our own message (with its seq) or change: remembered, and a change said.
    func acknowledged(_ ack: ChatMessage, of own: ChatMessage) {
        var own = own
        own.sender = session.nick
        own.seq = ack.seq
        own.ts = ack.ts
        if own.messageType == .msg || own.messageType == .dm {
            if ack.seq != nil { remember(own) }
            return
        }
        remember(own)
        if !options.json { show(formatter.lines(for: own, now: unixMilliseconds()), at: ack.ts ?? unixMilliseconds()) }
    }
}
