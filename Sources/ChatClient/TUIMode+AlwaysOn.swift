import ChatClientKit
import ChatProtocol
import ChatTUI

/// Version 1.2's "always on" in the full-screen client (PROTOCOL.md sections 13 and 14): the
/// account's rooms and conversations come back at a `welcome` with their counts on the bar (the
/// session joins and reads them), a conversation's history fills its buffer, and read markers
/// follow the buffer shown.
extension TUIMode {
    /// `welcome`'s `rooms` and `conversations`: a buffer each, with its unread and mention counts.
    func showKeptPlaces(_ welcome: ChatMessage) {
        for listing in welcome.rooms ?? [] {
            guard let position = listing.position else { continue }
            model.setCounts(unread: position.unread, mentions: position.mentions, in: listing.room)
        }
        for conversation in welcome.conversations ?? [] {
            if model.queryIndex(conversation.with) == nil { openConversation(with: conversation.with) }
            guard let index = model.queryIndex(conversation.with) else { continue }
            model.setCounts(unread: conversation.position.unread, mentions: conversation.position.mentions, in: model.rooms[index].name)
        }
    }

    /// A `dm` read from a conversation's history (`replay`): in its place in time, once (a
    /// message shown already, live or from the local store, is not repeated), neither counted
    /// nor rung for.
    func receivedStoredPrivate(_ message: ChatMessage) {
        let me = ChatValidation.nickKey(model.nick)
        guard let other = ChatValidation.nickKey(message.sender) == me ? message.to : message.sender else { return }
        if model.queryIndex(other) == nil { openConversation(with: other) }
        guard let index = model.queryIndex(other) else { return }
        let buffer = model.rooms[index].name
        if let seq = message.seq, model.hasMessage(seq: seq, in: buffer) { return }
        var line = privateLine(for: message)
        if line.kind == .directMessage { line.kind = .history }
        model.insertInTimeOrder(line, to: buffer)
    }

    /// Another device's `read`: that buffer's counts here lose what it read; the session knows
    /// the marker so this device does not send it again.
    func receivedRead(_ message: ChatMessage) {
        guard let read = message.read, let place = ReadMarkers.place(of: message), let buffer = bufferName(of: place) else { return }
        model.markRead(upTo: read, in: buffer)
    }

    /// The buffer shown changed from `previous` to `shown`: the marker of each moves to its
    /// newest message (the one left was read while it was shown; the one shown is seen now).
    func buffersSwitched(from previous: String?, to shown: String?) {
        for name in [previous, shown].compactMap({ $0 }) {
            guard let place = place(ofBuffer: name), let seq = model.newestSeq(in: name) else { continue }
            session.markRead(place, upTo: seq)
        }
    }

    /// A key was pressed: the buffer shown is read up to its newest message.
    func markShownRead() {
        guard let name = model.currentRoom?.name, let place = place(ofBuffer: name), let seq = model.newestSeq(in: name) else { return }
        session.markRead(place, upTo: seq)
    }

    /// The room or conversation a buffer is (nil for a view).
    func place(ofBuffer name: String) -> MessageTarget? {
        guard let room = model.room(named: name), !room.isView else { return nil }
        return room.queryNick.map { .conversation($0) } ?? .room(name)
    }

    func bufferName(of place: MessageTarget) -> String? {
        switch place {
        case .room(let room): model.roomIndex(named: room) == nil ? nil : room
        case .conversation(let nick): model.queryIndex(nick).map { model.rooms[$0].name }
        }
    }
}
