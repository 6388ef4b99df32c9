import ChatProtocol
import ChatServerCore
import SplitMix

/// Drives a ``ChatServerState`` the way the glue would, on a clock the test controls.
final class Harness {
    let state: ChatServerState
    /// Unix milliseconds handed to every call; tests move it with `advance`.
    var now: Int64 = 1_764_480_000_000
    private var decoders: [String: ChatStreamDecoder] = [:]
    private var messageCounter: UInt64 = 0

    init(configuration: ChatServerConfiguration = ChatServerConfiguration(), history: any HistoryStore = InMemoryHistoryStore(),
         accounts: any AccountStore = InMemoryAccountStore()) throws {
        state = try ChatServerState(configuration: configuration, history: history, accounts: accounts, random: SplitMix64(seed: 1))
    }

    /// A harness whose flood limit never triggers, for tests that send many messages.
    static func floodFree(_ configuration: ChatServerConfiguration = ChatServerConfiguration(), history: any HistoryStore = InMemoryHistoryStore()) throws -> Harness {
        var unlimited = configuration
        unlimited.floodBurst = 1_000_000
        return try Harness(configuration: unlimited, history: history)
    }

    func advance(_ milliseconds: Int64) {
        now += milliseconds
    }

    /// A fixed peer id per client number, so tests can reconnect "the same device".
    static func peer(_ number: UInt64) -> String {
        let hex = String(number, radix: 16, uppercase: true)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    @discardableResult
    func connect(_ client: ClientID, legacy: Bool = false, datagrams: Bool = true, address: String = "") -> Outbox {
        Outbox(state.connected(client, legacy: legacy, datagrams: datagrams, address: address, now: now))
    }

    /// A well-formed message arriving on a stream.
    @discardableResult
    func send(_ message: ChatMessage, from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        Outbox(state.received(.message(message), from: client, on: stream, now: now))
    }

    @discardableResult
    func event(_ event: ChatStreamEvent, from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        Outbox(state.received(event, from: client, on: stream, now: now))
    }

    /// Raw stream bytes, framed by one decoder per client and stream as the glue does.
    @discardableResult
    func raw(_ bytes: [UInt8], from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        let key = "\(client)/\(stream)"
        var decoder = decoders[key] ?? ChatStreamDecoder()
        let events = decoder.feed(bytes)
        decoders[key] = decoder
        return Outbox(events.flatMap { state.received($0, from: client, on: stream, now: now) })
    }

    @discardableResult
    func raw(_ text: String, from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        raw(Array(text.utf8), from: client, on: stream)
    }

    @discardableResult
    func datagram(_ message: ChatMessage, from client: ClientID) -> Outbox {
        Outbox(state.receivedDatagram(message.encodedDatagram(), from: client, now: now))
    }

    @discardableResult
    func openPresence(_ client: ClientID) -> Outbox {
        Outbox(state.presenceStreamOpened(client, now: now))
    }

    @discardableResult
    func disconnect(_ client: ClientID, reason: String = "quit") -> Outbox {
        Outbox(state.disconnected(client, reason: reason, now: now))
    }

    /// Connects, says hello with `nick` in `room` and, unless told otherwise, opens the
    /// presence stream with `status online` as a client does. Returns the hello's outbox.
    @discardableResult
    func login(
        _ client: ClientID, nick: String, room: String = "lobby", peer: String? = nil, since: Int64? = nil,
        datagrams: Bool = true, presence: Bool = true, legacy: Bool = false, address: String = ""
    ) -> Outbox {
        connect(client, legacy: legacy, datagrams: datagrams, address: address)
        let hello = send(.join(nick: nick, peer: peer ?? Harness.peer(client), room: room, since: since), from: client)
        if presence {
            send(.status("online"), from: client, on: .presence)
        }
        return hello
    }

    /// Sends a room message with a fresh id and returns its outbox.
    @discardableResult
    func say(_ text: String, from client: ClientID, in room: String = "lobby", id: String? = nil) -> Outbox {
        send(.msg(room: room, text: text, id: id ?? nextMessageID()), from: client)
    }

    /// A fresh UUID-shaped message id, unique within this harness.
    func nextMessageID() -> String {
        messageCounter += 1
        return Harness.peer(0xABC0_0000_0000 + messageCounter)
    }
}
