import ChatServerCore

/// A node's inbox message (a stream with a channel, like a room's, that other nodes append to):
/// its meta is `KIND/ARGUMENT` (`dm/NICK`, `replace/CLIENT`, `kick/NICK`, `invite/NICK`,
/// `file/NICK`), its payload the message's body.
public enum InboxMessage: Equatable, Sendable {
    /// A message for the core as it is.
    case message(NodeMessage)
    /// A REPLACED for connection `client`, if it is still the device with this digest: only the
    /// receiving node knows its connections' peer ids, so the check is its glue's.
    case replace(client: ClientID, device: [UInt8])
    /// Not a message this node knows (logged, dropped).
    case unknown(kind: String)
    /// A meta without a kind (logged, dropped).
    case malformed
    /// A known kind whose argument or body is not one (dropped quietly).
    case ignored

    /// `message`'s meta and payload. A `replace` carries the digest of the device
    /// (``PeerDigest``), so the receiver closes only the connection of that device.
    public static func encode(_ message: NodeMessage) -> (meta: [UInt8], payload: [UInt8]) {
        switch message {
        case .dm(let to, let body, _): return (Array("dm/\(to)".utf8), body)
        case .replace(let client, let peer): return (Array("replace/\(client)".utf8), Array(PeerDigest.of(peer).utf8))
        case .kick(let nick, let reason, let by): return (Array("kick/\(nick)".utf8), Array("\(by)\n\(reason)".utf8))
        case .invite(let nick, let device, let body): return (Array("invite/\(nick)".utf8), deviceMessage(device, body))
        case .fileNotice(let nick, let device, let body): return (Array("file/\(nick)".utf8), deviceMessage(device, body))
        }
    }

    public static func decode(meta: [UInt8], payload: [UInt8]) -> InboxMessage {
        let text = String(decoding: meta, as: UTF8.self)
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .malformed }
        let argument = String(parts[1])
        switch parts[0] {
        case "dm":
            return .message(.dm(to: argument, payload: payload))
        case "replace":
            guard let client = ClientID(argument) else { return .ignored }
            return .replace(client: client, device: payload)
        case "kick":
            let body = String(decoding: payload, as: UTF8.self)
            let by = body.prefix { $0 != "\n" }
            return .message(.kick(nick: argument, reason: String(body.dropFirst(by.count + 1)), by: String(by)))
        case "invite":
            guard let (device, body) = deviceAndBody(payload) else { return .ignored }
            return .message(.invite(nick: argument, device: device, payload: body))
        case "file":
            guard let (device, body) = deviceAndBody(payload) else { return .ignored }
            return .message(.fileNotice(nick: argument, device: device, payload: body))
        default:
            return .unknown(kind: String(parts[0].prefix(32)))
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
