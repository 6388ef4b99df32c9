import ChatProtocol
import ChatServerCore
import LocalStore
import SplitMix

/// Drives a ``ChatServerState`` the way the glue would, on a clock the test controls.
final class Harness {
    let state: ChatServerState
    /// Unix milliseconds handed to every call; tests move it with `advance`.
    var now: Int64 = 1_764_480_000_000
    private var decoders: [String: ChatStreamDecoder] = [:]
    private var messageCounter: UInt64 = 0

    /// The core as one server runs it (issue 27): its store actions answered by
    /// ``LocalStoreAdapter`` over an in-memory disk (or `history`, when it is a disk), on its
    /// worker, until nothing more happens (``settle(_:)``), and `accounts` read and written by
    /// that worker.
    init(configuration: ChatServerConfiguration = ChatServerConfiguration(),
         history: any HistoryStore = InMemoryHistoryStore(), accounts: any AccountStore = InMemoryAccountStore(),
         receiptLimit: Int = 100_000, seed: UInt64 = 1) throws {
        state = try ChatServerState(configuration: configuration, history: InMemoryHistoryStore(), accounts: SharedAccountCache(),
                                    files: SharedFileCatalog(), random: SplitMix64(seed: seed))
        // A history that is also a disk and a file catalog (SQLite's) is the worker's, as the glue
        // opens a `--db`; else both in memory.
        let disk = (history as? any RoomLogDisk) ?? InMemoryRoomLogDisk()
        let files = (history as? any FileCatalog) ?? InMemoryFileCatalog(history: InMemoryHistoryStore())
        let rig = LocalStoreAdapterTests.Rig(disk: LocalStoreAdapterTests.GatedDisk(disk), accounts: accounts, files: files,
                                             retain: configuration.historyPerRoom)
        // As the glue: without a disk file, an idle room's events live in memory, bounded by --idle-rooms.
        localStore = (rig, try rig.makeLog(receiptLimit: receiptLimit, loginFailureKeys: configuration.loginFailureKeys, idleRoomLimit: history is any RoomLogDisk ? nil : configuration.idleRoomLimit))
        state.clusterReady(true)
        _ = settle(state.serverBansChanged(try accounts.serverBans(), now: now))
    }

    /// The local store's worker and adapter (``init(configuration:history:accounts:receiptLimit:seed:)``).
    let localStore: (rig: LocalStoreAdapterTests.Rig, adapter: LocalStoreAdapter)?

    /// On the local store: hands the core's store actions to the adapter and its answers back,
    /// and the worker's outcomes (waiting for each round), until nothing more happens; returns the
    /// other actions, in order. Without it: `actions` as they are.
    @discardableResult
    func settle(_ actions: [ServerAction]) -> [ServerAction] {
        guard let (rig, adapter) = localStore else { return actions }
        var kept: [ServerAction] = []
        var next = actions
        while true {
            var answers: [LocalStoreAnswer] = []
            for action in next {
                if let answered = adapter.perform(action, now: now) { answers += answered } else { kept.append(action) }
            }
            next = answers.flatMap { state.storeAnswered($0, now: now) }
            guard next.isEmpty else { continue }
            // An outcome may give the worker more to do without an action (a reservation's commit
            // admits the appends waiting for it): its outcomes are taken until it has none.
            rig.worker.waitUntilIdle()
            let outcomes = rig.collected.items.withLock { taken in
                defer { taken.removeAll() }
                return taken
            }
            if outcomes.isEmpty { return kept }
            next = outcomes.flatMap { adapter.workerFinished($0) }.flatMap { state.storeAnswered($0, now: now) }
        }
    }

    /// On the local store: the events its disk keeps of `room`, oldest first (read between calls,
    /// when the worker is idle).
    func storedEvents(inRoom room: String, limit: Int = 10_000) throws -> [StoredEvent] {
        guard let (rig, _) = localStore else { return [] }
        return try rig.disk.events(inRoom: room, after: nil, before: nil, limit: limit, newest: true)
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
        Outbox(settle(state.connected(client, legacy: legacy, datagrams: datagrams, address: address, now: now)))
    }

    /// A well-formed message arriving on a stream.
    @discardableResult
    func send(_ message: ChatMessage, from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        Outbox(settle(state.received(.message(message), from: client, on: stream, now: now)))
    }

    @discardableResult
    func event(_ event: ChatStreamEvent, from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        Outbox(settle(state.received(event, from: client, on: stream, now: now)))
    }

    /// Raw stream bytes, framed by one decoder per client and stream as the glue does.
    @discardableResult
    func raw(_ bytes: [UInt8], from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        let key = "\(client)/\(stream)"
        var decoder = decoders[key] ?? ChatStreamDecoder()
        let events = decoder.feed(bytes)
        decoders[key] = decoder
        return Outbox(settle(events.flatMap { state.received($0, from: client, on: stream, now: now) }))
    }

    @discardableResult
    func raw(_ text: String, from client: ClientID, on stream: ChatStreamKind = .chat) -> Outbox {
        raw(Array(text.utf8), from: client, on: stream)
    }

    @discardableResult
    func datagram(_ message: ChatMessage, from client: ClientID) -> Outbox {
        Outbox(settle(state.receivedDatagram(message.encodedDatagram(), from: client, now: now)))
    }

    @discardableResult
    func openPresence(_ client: ClientID) -> Outbox {
        Outbox(settle(state.presenceStreamOpened(client, now: now)))
    }

    @discardableResult
    func disconnect(_ client: ClientID, reason: String = "quit") -> Outbox {
        Outbox(settle(state.disconnected(client, reason: reason, now: now)))
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
