import ChatClientKit
import ChatProtocol
import ChatTUI

/// `/edit`, `/redact`, `/react`, `/unreact` and `/reply` in the full-screen client (PROTOCOL.md
/// section 15). The sending device gets the `ack`, not the event (section 17): our own changes
/// are applied to the line when their `ack` comes, everyone else's when their event does.
extension TUIMode {
    func change(_ request: MessageRequest) {
        guard let room = model.currentRoom, !room.isView else {
            return complain("show a room or a conversation first: these commands act on its messages")
        }
        // The server's features are known from its first `welcome` on.
        guard session.everConnected else { return complain("not connected yet: try again once connected (the server says then what it offers)") }
        let target: MessageTarget = room.queryNick.map { .conversation($0) } ?? .room(room.name)
        let me = model.nick
        let shown = room.lines.compactMap { line -> ShownMessage? in
            guard line.isMessage, let seq = line.seq else { return nil }
            return ShownMessage(seq: seq, isOwn: line.kind.isOwn || ChatValidation.nickKey(line.nick) == ChatValidation.nickKey(me),
                                isRedacted: line.isRedacted)
        }
        let id = ChatSession.randomPeerID()
        let ownPending = room.lines.last { $0.kind.isOwn && $0.isMessage }?.kind == .ownPending
        switch MessageReferences.message(for: request, in: target, shown: shown, features: session.features, id: id, ownPending: ownPending) {
        case .failure(.message(let text)): complain(text)
        case .failure(.usage): complain("no such message")
        case .success(let message) where message.messageType == .msg || message.messageType == .dm:
            // A reply: our line, pending, with the message it answers quoted.
            var line = ChatLine(timestamp: unixMilliseconds(), nick: me, text: message.text, kind: .ownPending, id: id,
                                isPrivate: message.messageType == .dm)
            line.reply = message.ref.flatMap { model.replyQuote(seq: $0, in: room.name) }
            guard session.send(message) else { return note("too much waiting to be sent; not sent: \(message.text)", in: room.name) }
            model.append(line, to: room.name)
            sentLines[id] = (room.name, line, message)
        case .success(let message):
            guard session.send(message) else { return note("too much waiting to be sent; nothing was changed", in: room.name) }
            sentChanges[id] = (room.name, message)
            if !session.isConnected { note("not connected: /\(message.type) will be done once reconnected", in: room.name) }
        }
    }

    /// The `ack` of one of our changes: it is applied to its line.
    func acknowledgedChange(_ id: String) {
        guard let sent = sentChanges.removeValue(forKey: id) else { return }
        apply(change: sent.message, by: model.nick, in: sent.buffer)
    }

    /// An `edit`, `redact`, `react` or `unreact` applied to the line of the message it names.
    func apply(change message: ChatMessage, by nick: String, in buffer: String) {
        guard let ref = message.ref else { return }
        switch message.messageType {
        case .edit: model.applyEdit(seq: ref, text: message.text, in: buffer)
        case .redact: model.applyRedaction(seq: ref, in: buffer)
        case .react, .unreact: model.applyReaction(message.text, by: nick, added: message.messageType == .react, seq: ref, in: buffer)
        default: break
        }
    }

    /// The buffer a change event belongs to: its room, or in a private conversation (section
    /// 17: `sender` and `to`, no room) the conversation with the other side.
    func changeBuffer(of message: ChatMessage) -> String? {
        if let room = message.room { return room }
        let me = ChatValidation.nickKey(model.nick)
        let other = message.with ?? (ChatValidation.nickKey(message.sender) == me ? message.to : message.sender)
        return other.flatMap { model.queryIndex($0) }.map { model.rooms[$0].name }
    }

    func toggleMessageNumbers() {
        renderer.options.messageNumbers.toggle()
        model.notice = renderer.options.messageNumbers ? "each message shows its number: /edit N, /reply N, /react N use it"
            : "message numbers are hidden (/numbers shows them)"
        needsRender = true
    }
}
