import ChatClientKit
import ChatProtocol
import ChatTUI

/// `/search WORDS` on a server that searches (version 1.2, section 15): what it finds is shown in
/// the `=search` view; Enter there shows the newest in its place (N Enter: message N), fetching
/// what was said around it from history when the buffer does not hold it.
extension TUIMode {
    /// Messages of context asked for on each side of a message shown from a search.
    static let contextAround: Int64 = 10

    /// False when the server does not search (the lines shown are searched instead).
    func searchServer(_ words: String) -> Bool {
        guard session.features.contains(ServerFeature.search) else { return false }
        let shown = model.currentRoom?.name == ChatViewModel.foundView ? foundFrom?.buffer : model.currentRoom?.name
        guard let buffer = shown, let place = place(ofBuffer: buffer) else {
            complain("show a room or a conversation to search it")
            return true
        }
        guard (try? ChatValidation.searchQuery(words)) != nil else {
            complain(ClientCommands.searchRule)
            return true
        }
        var message = ChatMessage(type: MessageType.search.rawValue, text: words)
        switch place {
        case .room(let room): message.room = room
        case .conversation(let nick): message.with = nick
        }
        foundFrom = (buffer, place, words)
        request(message, doing: "/search")
        return true
    }

    /// A `found`: its messages in the `=search` view.
    func receivedFound(_ message: ChatMessage) {
        guard let place = ReadMarkers.place(of: message) else { return }
        let buffer = bufferName(of: place) ?? (message.room ?? ChatRoom.queryPrefix + (message.with ?? ""))
        foundFrom = (buffer, place, message.text)
        let me = ChatValidation.nickKey(model.nick)
        let lines = (message.events ?? []).map { event -> ChatLine in
            if event.messageType == .dm { return privateLine(for: event) }
            let action = ChatAction.body(of: event.text)
            let own = ChatValidation.nickKey(event.sender) == me
            var line = ChatLine(timestamp: event.ts ?? 0, nick: event.sender, text: action ?? event.text, kind: own ? .ownConfirmed : .history,
                                isAction: action != nil, seq: event.seq)
            line.isEdited = event.edited != nil
            return line
        }
        let label: String
        switch place {
        case .room: label = "#" + buffer
        case .conversation: label = buffer
        }
        model.showFound(lines, in: label, words: message.text)
    }

    /// Enter in the `=search` view: message `number` (nil: the newest found) in its place.
    func showFoundMessage(_ number: Int64?) {
        guard let found = foundFrom else { return }
        guard let seq = number ?? model.room(named: ChatViewModel.foundView)?.lines.last(where: { $0.seq != nil })?.seq else {
            model.notice = "nothing was found to show"
            return
        }
        if model.showMessage(seq: seq, in: found.buffer, term: found.words) { return }
        jumpTarget = (found.buffer, seq, found.words)
        let before = seq + Self.contextAround + 1, limit = Int(Self.contextAround * 2 + 1)
        switch found.place {
        case .room(let room):
            guard !historyRequested.contains(room) else { return }
            historyRequested.insert(room)
            session.send(.history(room: room, before: before, limit: limit))
        case .conversation(let nick):
            session.send(ChatMessage(type: MessageType.history.rawValue, before: before, limit: limit, with: nick))
        }
        model.selectRoom(named: found.buffer)
        model.notice = "fetching message \(seq) and what was said around it"
    }

    /// A history answer came for `buffer`: the message a search wanted shown, if it was for it.
    func showJumpTarget(in buffer: String) {
        guard let target = jumpTarget, target.buffer == buffer else { return }
        jumpTarget = nil
        if !model.showMessage(seq: target.seq, in: buffer, term: target.term) {
            model.notice = "message \(target.seq) is no longer stored"
        }
    }
}
