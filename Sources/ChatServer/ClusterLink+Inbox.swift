import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// A node's inbox: a stream with a channel, like a room's, that other nodes append to (a `dm`
/// for one of this node's users, a REPLACED for one of its connections) and this node follows
/// with the same sequencer, so a message is neither lost to a cut subscription nor seen twice.
extension ClusterLink {
    func send(_ message: NodeMessage, to node: String, token: UInt64?) {
        let kind: String
        let payload: [UInt8]
        var dedupe: String?
        switch message {
        case .dm(let to, let body, let key):
            kind = "dm/\(to)"
            payload = body
            dedupe = key.map(digestedDedupeKey)
        case .replace(let client, let peer):
            kind = "replace/\(client)"
            // The digest of the device, so the receiver closes only the connection of that device.
            payload = Array(Self.digest(ofPeer: peer).utf8)
        case .kick(let nick, let reason, let by):
            kind = "kick/\(nick)"
            payload = Array("\(by)\n\(reason)".utf8)
        case .invite(let nick, let device, let body):
            kind = "invite/\(nick)"
            payload = Self.deviceMessage(device, body)
        case .fileNotice(let nick, let device, let body):
            kind = "file/\(nick)"
            payload = Self.deviceMessage(device, body)
        }
        inboxLog.append(room: Self.inboxRoom(of: node), event: payload, meta: Array(kind.utf8), dedupe: dedupe) { [weak self] result in
            guard let self, let token else { return }
            switch result {
            case .success: report(.nodeMessageSent(token, .answered(true)))
            case .failure(let error): report(.nodeMessageSent(token, .failed("\(error)")))
            }
        }
    }

    func receivedInboxMessage(_ event: RoomEvent) {
        let meta = String(decoding: event.meta, as: UTF8.self)
        let parts = meta.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return logger(.warning, "unknown inbox message", ["seq": String(event.seq)]) }
        switch parts[0] {
        case "dm":
            report(.nodeMessage(.dm(to: String(parts[1]), payload: event.payload)))
        case "replace":
            guard let client = ClientID(parts[1]), let peer = peerOf(client),
                  Array(Self.digest(ofPeer: peer).utf8) == event.payload else { return }
            report(.nodeMessage(.replace(client: client, peer: peer)))
        case "kick":
            let text = String(decoding: event.payload, as: UTF8.self)
            let by = text.prefix { $0 != "\n" }
            report(.nodeMessage(.kick(nick: String(parts[1]), reason: String(text.dropFirst(by.count + 1)), by: String(by))))
        case "invite":
            guard let (device, body) = Self.deviceAndBody(event.payload) else { return }
            report(.nodeMessage(.invite(nick: String(parts[1]), device: device, payload: body)))
        case "file":
            guard let (device, body) = Self.deviceAndBody(event.payload) else { return }
            report(.nodeMessage(.fileNotice(nick: String(parts[1]), device: device, payload: body)))
        default:
            logger(.warning, "unknown inbox message", ["kind": String(parts[0].prefix(32))])
        }
    }

    /// A message for one device: its digest, LF, then the message as the user gets it.
    private static func deviceMessage(_ device: String, _ body: [UInt8]) -> [UInt8] { Array("\(device)\n".utf8) + body }

    /// ``deviceMessage(_:_:)`` read back.
    private static func deviceAndBody(_ payload: [UInt8]) -> (device: String, body: [UInt8])? {
        guard let newline = payload.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return (String(decoding: payload[..<newline], as: UTF8.self), Array(payload[(newline + 1)...]))
    }
}
