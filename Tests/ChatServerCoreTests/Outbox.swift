import ChatProtocol
import ChatServerCore

/// The actions of one call, with views that decode what each client would receive.
struct Outbox {
    let actions: [ServerAction]

    init(_ actions: [ServerAction]) {
        self.actions = actions
    }

    /// One `.send` or `.datagram`, decoded.
    struct Delivery {
        let client: ClientID
        /// nil for a datagram.
        let stream: ChatStreamKind?
        let message: ChatMessage
        let live: Bool
        let payload: SharedPayload
    }

    var deliveries: [Delivery] {
        actions.compactMap { action in
            switch action {
            case .send(let client, let stream, let payload, let live):
                Delivery(client: client, stream: stream, message: Outbox.decode(payload), live: live, payload: payload)
            case .datagram(let client, let payload):
                Delivery(client: client, stream: nil, message: Outbox.decode(payload), live: true, payload: payload)
            default:
                nil
            }
        }
    }

    /// What `client` received on its chat stream, in order.
    func chat(to client: ClientID) -> [ChatMessage] {
        deliveries.filter { $0.client == client && $0.stream == .chat }.map(\.message)
    }

    /// What `client` received on its presence stream, in order.
    func presence(to client: ClientID) -> [ChatMessage] {
        deliveries.filter { $0.client == client && $0.stream == .presence }.map(\.message)
    }

    /// The datagrams sent to `client`, in order.
    func datagrams(to client: ClientID) -> [ChatMessage] {
        deliveries.filter { $0.client == client && $0.stream == nil }.map(\.message)
    }

    /// The `code` of every `error` sent to `client`.
    func errorCodes(to client: ClientID) -> [String] {
        chat(to: client).filter { $0.type == "error" }.compactMap(\.code)
    }

    /// Clients that received anything at all.
    var recipients: Set<ClientID> {
        Set(deliveries.map(\.client))
    }

    var closes: [(client: ClientID, code: CloseCode, reason: String)] {
        actions.compactMap { action in
            if case .close(let client, let code, let reason) = action { (client, code, reason) } else { nil }
        }
    }

    var logs: [(level: LogLevel, event: String, fields: [String: String])] {
        actions.compactMap { action in
            if case .log(let level, let event, let fields) = action { (level, event, fields) } else { nil }
        }
    }

    /// Everything but log lines.
    var effects: [ServerAction] {
        actions.filter { if case .log = $0 { false } else { true } }
    }

    static func decode(_ payload: SharedPayload) -> ChatMessage {
        do {
            return try ChatMessage.decode(payload.bytes)
        } catch {
            return ChatMessage(type: "undecodable: \(error)")
        }
    }
}

extension Outbox {
    static func + (lhs: Outbox, rhs: Outbox) -> Outbox {
        Outbox(lhs.actions + rhs.actions)
    }
}
