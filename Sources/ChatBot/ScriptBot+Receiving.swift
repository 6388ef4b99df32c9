import ChatProtocol

/// What arrives for a bot: its own joins and parts, acknowledgements, and the messages an
/// `expect` looks for.
extension ScriptBot {
    func receive(_ message: ChatMessage) {
        runner.trace(self, message)
        let own = message.sender == nick && message.replay != true
        switch message.type {
        case "joined" where own:
            guard let room = message.room else { return }
            joined(room)
        case "left" where own:
            guard let room = message.room else { return }
            left(room)
        case "ack":
            acknowledged(message.id)
        case "error":
            runner.note("\(definition.name): server error \(message.code ?? "?"): \(message.text)")
            acknowledged(message.id)
            remember(message)
        case "file" where message.file != nil && message.replay != true:
            lastSharedFile = message
            remember(message)
        case "msg", "dm", "typing", "account", "topic", "kicked", "banned", "unbanned", "op", "deop", "mode", "invite", "whois", "rooms",
             "joined", "left":
            if message.replay != true { remember(message) }
        default:
            break
        }
    }

    private func joined(_ room: String) {
        if phase == .connecting, room == definition.room {
            phase = .ready
            files.connected(session.connection)
            rememberJoined(room)
            runner.botReady(self)
            return
        }
        rememberJoined(room)
        if case .joining(let awaited) = blocker, awaited == room { unblock() }
    }

    private func left(_ room: String) {
        forgetJoined(room)
        if case .parting(let awaited) = blocker, awaited == room { unblock() }
    }

    private func acknowledged(_ id: String?) {
        guard let id, unacknowledged.remove(id) != nil else { return }
        if case .acknowledgements = blocker, unacknowledged.isEmpty { close() }
    }

    private func rememberJoined(_ room: String) {
        rooms.removeAll { $0 == room }
        rooms.append(room)
    }

    private func forgetJoined(_ room: String) {
        rooms.removeAll { $0 == room }
    }

    /// Keeps the message for a later `expect`, or hands it to the one waiting now.
    private func remember(_ message: ChatMessage) {
        if case .expecting(let expectation) = blocker, expectation.matches(message, senderNick: sender(of: expectation)) {
            unblock()
            return
        }
        inbox.append(message)
        if inbox.count > ScriptBot.inboxLimit { inbox.removeFirst(inbox.count - ScriptBot.inboxLimit) }
    }

    /// Takes a matching message from the inbox, or waits for one until the timeout fails the run.
    func expect(_ expectation: ScriptExpectation, line: Int) {
        let senderNick = sender(of: expectation)
        if let index = inbox.firstIndex(where: { expectation.matches($0, senderNick: senderNick) }) {
            inbox.remove(at: index)
            return
        }
        block(.expecting(expectation), line: line, milliseconds: expectation.timeoutMilliseconds) { [unowned self] in
            let recent = inbox.suffix(3).map { "\($0.type) from \($0.sender): \"\($0.text)\"" }
            let seen = recent.isEmpty ? "nothing else arrived" : "last received: " + recent.joined(separator: "; ")
            runner.fail(ScriptFailure(line: line, bot: definition.name, message: "expected \(expectation), \(seen)"))
        }
    }

    private func sender(of expectation: ScriptExpectation) -> String? {
        expectation.from.map { runner.nick(for: $0) }
    }
}
