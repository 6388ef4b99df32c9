import ChatProtocol

/// `history`: paging back through a room's stored events.
extension ChatServerState {
    func handleHistory(_ request: ChatMessage, from session: ClientSession, into out: inout [ServerAction]) {
        guard let room = ChatValidation.normalizeRoom(request.roomOrDefault) else {
            sendError(.badRoom, id: request.id, to: session, into: &out)
            return
        }
        guard session.isMember(of: room) else {
            sendError(.notJoined, "you are not in room '\(room)'", id: request.id, to: session, into: &out)
            return
        }
        let requested = request.limit ?? configuration.historyDefaultLimit
        // Asking for nothing is a mistake worth reporting; asking for too much is clamped.
        guard requested >= 1 else {
            sendError(.badField, "limit must be at least 1", id: request.id, to: session, into: &out)
            return
        }
        let limit = min(requested, configuration.historyMaxLimit)
        readRoomEvents(room, after: nil, before: request.before, limit: limit, for: .history(session.id, room: room), into: &out)
    }
}
