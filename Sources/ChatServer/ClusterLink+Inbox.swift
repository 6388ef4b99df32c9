import ChatServerCore
import ClusterStore
import RedisClient

/// A node's inbox: a stream with a channel, like a room's, that other nodes append to (a `dm`
/// for one of this node's users, a REPLACED for one of its connections) and this node follows
/// with the same sequencer, so a message is neither lost to a cut subscription nor seen twice.
/// The messages' format is ``InboxMessage``'s.
extension ClusterLink {
    func send(_ message: NodeMessage, to node: String, token: UInt64?) {
        let (meta, payload) = InboxMessage.encode(message)
        var dedupe: String?
        if case .dm(_, _, let key?) = message { dedupe = digestedDedupeKey(key) }
        inboxLog.append(room: ClusterKeys.inboxRoom(of: node), event: payload, meta: meta, dedupe: dedupe) { [weak self] result in
            guard let self, let token else { return }
            switch result {
            case .success: report(.nodeMessageSent(token, .answered(true)))
            case .failure(let error): report(.nodeMessageSent(token, .failed("\(error)")))
            }
        }
    }

    func receivedInboxMessage(_ event: RoomEvent) {
        switch InboxMessage.decode(meta: event.meta, payload: event.payload) {
        case .message(let message):
            report(.nodeMessage(message))
        case .replace(let client, let device):
            report(.replaceRequested(client: client, device: device))
        case .unknown(let kind):
            logger(.warning, "unknown inbox message", ["kind": kind])
        case .malformed:
            logger(.warning, "unknown inbox message", ["seq": String(event.seq)])
        case .ignored:
            break
        }
    }
}
