import ChatClientKit
import ChatProtocol
import QuicEngine

/// What arrives for a bot: its own joins and parts, acknowledgements, and the messages an
/// `expect` looks for.
extension ScriptBot {
    func receive(_ message: ChatMessage) {
        runner.trace(self, message)
        if let seq = message.resumeSeq, let room = message.room { lastSeq[room] = max(lastSeq[room] ?? seq, seq) }
        if message.type == "msg" || message.type == "file" { noteSeen(message) }
        // Replayed history never counts, except what the bot missed while it moved: that counts
        // as it would have live (its own events excepted: they change nothing now).
        let own = message.sender == nick && message.replay != true
        var fresh = message
        if missedWhileAway(message) { fresh.replay = nil }
        switch message.type {
        case "joined" where own:
            guard let room = message.room else { return }
            joined(room)
        case "left" where own:
            guard let room = message.room else { return }
            left(room)
        case "ack":
            noteOwnSeq(of: message)
            acknowledged(message.id)
        case "error" where move != nil && message.id == nil && ChatSession.isRefusedForNow(message):
            // The new connection's hello, refused for now: again shortly.
            session.sayHelloAgain(on: runner.loop) { [unowned self] in move != nil && phase != .closing }
        case "error" where message.code == ErrorCode.unavailable.rawValue && unacknowledged.contains { $0.id == message.id }:
            resendLater(message.id ?? "")
        case "error":
            runner.note("\(definition.name): server error \(message.code ?? "?"): \(message.text)")
            if let id = message.id, unacknowledged.contains(where: { $0.id == id }) { refused[id] = message.code ?? "error" }
            acknowledged(message.id)
            remember(message)
        case "file" where fresh.file != nil && fresh.replay != true:
            lastSharedFile = fresh
            remember(fresh)
        case "msg", "dm", "typing", "account", "topic", "kicked", "banned", "unbanned", "op", "deop", "mode", "invite", "whois", "rooms",
             "joined", "left", "edit", "redact", "react", "unreact", "read", "found", "away":
            if fresh.replay != true { remember(fresh) }
        default:
            break
        }
    }

    /// A room's `msg` or `file` with its seq: what `last` names (section 15's commands).
    private func noteSeen(_ message: ChatMessage) {
        guard let room = message.room, let seq = message.seq else { return }
        newestMessageSeq[room] = max(newestMessageSeq[room] ?? seq, seq)
    }

    /// The ack of one of the bot's own room messages (or replies): what `mine` names.
    private func noteOwnSeq(of ack: ChatMessage) {
        guard let seq = ack.seq, let id = ack.id, let sent = unacknowledged.first(where: { $0.id == id }),
              sent.messageType == .msg, let room = sent.room else { return }
        ownMessageSeq[room] = max(ownMessageSeq[room] ?? seq, seq)
        newestMessageSeq[room] = max(newestMessageSeq[room] ?? seq, seq)
    }

    private func joined(_ room: String) {
        if rejoined(room) { return }
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

    /// A message answered `unavailable`: not stored now, or not known to be. Sent again with its id
    /// (stored once whatever happened) after 100 ms, doubling to 2 s; after
    /// ``unavailableAttempts`` answers the run fails. A `quit` waiting for acknowledgements waits
    /// anew: the server is answering.
    private func resendLater(_ id: String) {
        let answers = unavailableAnswers[id, default: 0] + 1
        unavailableAnswers[id] = answers
        runner.note("\(definition.name): the server could not store a message now (unavailable); sending it again")
        guard answers < Self.unavailableAttempts else {
            return runner.fail(ScriptFailure(line: blockerLine, bot: definition.name,
                                             message: "a message was answered unavailable \(answers) times: not stored"))
        }
        if case .acknowledgements = blocker { quitWhenAcknowledged(line: blockerLine, again: true) }
        let connection = session
        runner.loop.schedule(at: .now() + .milliseconds(UInt64(min(2000, 100 << min(answers - 1, 5))))) { [weak self] in
            guard let self, session === connection, move == nil, phase != .closing,
                  let message = unacknowledged.first(where: { $0.id == id }) else { return }
            session.send(message)
        }
    }

    private func acknowledged(_ id: String?) {
        guard let id, let index = unacknowledged.firstIndex(where: { $0.id == id }) else { return }
        unavailableAnswers[id] = nil
        unacknowledged.remove(at: index)
        if case .acknowledgements = blocker, unacknowledged.isEmpty { close() }
    }

    func rememberJoined(_ room: String) {
        rooms.removeAll { $0 == room }
        rooms.append(room)
    }

    private func forgetJoined(_ room: String) {
        rooms.removeAll { $0 == room }
    }

    /// Keeps the message for a later `expect`, or hands it to the one waiting now.
    private func remember(_ message: ChatMessage) {
        if case .expecting(let expectation) = blocker, expectation.matches(message, senderNick: sender(of: expectation)) {
            // An error the script expected is not a message lost.
            if message.type == "error", let id = message.id { refused[id] = nil }
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
            if inbox[index].type == "error", let id = inbox[index].id { refused[id] = nil }
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
