import ClusterStore
import Foundation
import EventRuntime
import RedisClient
import TestSupport

/// An event loop on the test's (dedicated) thread with Redis clients on it: the test calls and
/// waits synchronously, the loop runs until what it waits for happened (checked after every
/// round of the loop), never for a fixed time.
final class RedisHarness {
    let loop: EventLoop
    private(set) var clients: [RedisClient] = []
    /// Every client's events, in order, with the index of the client that raised it.
    private(set) var events: [(client: Int, event: RedisClientEvent)] = []
    private var condition: (() -> Bool)?
    /// Also told every client event (a RoomFeed under test), with the client's index.
    var forward: (Int, RedisClientEvent) -> Void = { _, _ in }

    init() throws {
        loop = try EventLoop()
        loop.addTick { [unowned self] in
            if let condition, condition() { loop.stop() }
            return (nil, false)
        }
    }

    deinit { for client in clients { client.stop() } }

    static func fastSettings(replyTimeout: TimeSpan = .seconds(5)) -> RedisConnectionSettings {
        RedisConnectionSettings(backoff: RedisBackoff(initial: .milliseconds(20), maximum: .milliseconds(200)),
                                replyTimeout: replyTimeout, heartbeatInterval: .milliseconds(200))
    }

    /// A started client; waits for its first connection (and slot map on a cluster).
    @discardableResult
    func client(_ topology: RedisClient.Topology, settings: RedisConnectionSettings = RedisHarness.fastSettings()) throws -> RedisClient {
        let index = clients.count
        let client = RedisClient(loop: loop, topology: topology, settings: settings) { [unowned self] event in
            events.append((index, event))
            forward(index, event)
        }
        clients.append(client)
        client.start()
        let ready = run {
            if client.isCluster { return client.currentSlotMap?.isComplete == true }
            if case .standalone(let server) = topology { return client.isConnected(server) }
            return false
        }
        guard ready else { throw HarnessFailure("client never became ready") }
        return client
    }

    static func standalone(_ server: RedisServerProcess) -> RedisClient.Topology {
        .standalone(RedisServerAddress(host: "127.0.0.1", port: server.port))
    }

    static func cluster(_ cluster: RedisClusterProcesses) -> RedisClient.Topology {
        .cluster(seeds: [RedisServerAddress(host: "127.0.0.1", port: cluster.ports[0])])
    }

    /// Runs the loop until `done()` holds or `seconds` (scaled) pass; returns `done()`. `done` is
    /// checked after every round of the loop, and at least every 50 ms: a condition on the
    /// outside (what a Redis server reports) may come true while the loop has nothing to wake
    /// it (a client blocked in BLPOP sends no heartbeat).
    @discardableResult
    func run(seconds: Double = 15, until done: @escaping () -> Bool) -> Bool {
        if done() { return true }
        condition = done
        let timer = loop.schedule(at: .now() + .milliseconds(UInt64(TestTime.scaled(seconds) * 1000))) { [unowned self] in loop.stop() }
        var recheck: LoopTimerID?
        func scheduleRecheck() {
            recheck = loop.schedule(at: .now() + .milliseconds(50)) { scheduleRecheck() }
        }
        scheduleRecheck()
        loop.run()
        loop.cancel(timer)
        if let recheck { loop.cancel(recheck) }
        condition = nil
        return done()
    }

    /// Waits until the Redis at `address` lists one client blocked (in BLPOP or WAIT), asking
    /// through a connection of its own every 20 ms: an in-process client, where starting
    /// redis-cli for each look took seconds when the whole suite ran on a loaded machine.
    func waitUntilOneBlocked(at address: RedisServerAddress, seconds: Double = 15) throws -> Bool {
        let probe = try client(.standalone(address))
        defer { probe.stop() }
        let deadline = MonotonicTime.now() + .milliseconds(UInt64(TestTime.scaled(seconds) * 1000))
        while MonotonicTime.now() < deadline {
            if case .success(let reply) = try call(probe, RedisCommand("INFO", "clients")),
               let text = reply.bytes.map({ String(decoding: $0, as: UTF8.self) }), text.contains("blocked_clients:1") {
                return true
            }
            var turned = false
            loop.schedule(at: .now() + .milliseconds(20)) { turned = true }
            run { turned }
        }
        return false
    }

    /// Sends one command and waits for its answer.
    func call(_ client: RedisClient, _ command: RedisCommand, key: String? = nil) throws -> Result<RedisReply, RedisFailure> {
        var answer: Result<RedisReply, RedisFailure>?
        client.send(command, key: key.map { Array($0.utf8) }) { answer = $0 }
        guard run(until: { answer != nil }), let answer else { throw HarnessFailure("no answer to \(command.name)") }
        return answer
    }

    /// Sends one command and returns its reply, failing the test on a failure.
    func reply(_ client: RedisClient, _ command: RedisCommand, key: String? = nil) throws -> RedisReply {
        switch try call(client, command, key: key) {
        case .success(let reply): return reply
        case .failure(let failure): throw HarnessFailure("\(command.name) failed: \(failure)")
        }
    }

    /// Waits for an event matching `matches` among those after index `from`; returns it.
    func waitForEvent(after from: Int = 0, seconds: Double = 15,
                      _ matches: @escaping (RedisClientEvent) -> Bool) throws -> RedisClientEvent {
        var found: RedisClientEvent?
        let ok = run(seconds: seconds) { [unowned self] in
            if found == nil, let hit = events.dropFirst(from).first(where: { matches($0.event) }) { found = hit.event }
            return found != nil
        }
        guard ok, let found else { throw HarnessFailure("event not seen") }
        return found
    }

    /// Subscribes `client` to `room`'s live events and waits for the first confirmation.
    @discardableResult
    func follow(_ room: String, of log: RoomEventLog) throws -> RedisSubscription {
        let subscription = log.subscription(room: room)
        log.client.subscribe(subscription)
        _ = try waitForEvent { if case .subscriber(.subscribed(subscription, restored: false)) = $0 { return true } else { return false } }
        return subscription
    }

    /// Pub/sub messages received so far, in order.
    var messages: [RedisPush] {
        events.compactMap { if case .subscriber(.message(let push)) = $0.event { return push } else { return nil } }
    }

    /// Appends through `log` and waits for the outcome.
    func append(_ log: RoomEventLog, room: String, event: String, meta: String = "-", dedupe: String? = nil, knownSeq: Int64 = 0,
                epoch: (key: String, value: String)? = nil) throws -> Result<RoomAppend, RoomStoreError> {
        var answer: Result<RoomAppend, RoomStoreError>?
        log.append(room: room, event: Array(event.utf8), meta: Array(meta.utf8), dedupe: dedupe, knownSeq: knownSeq, epoch: epoch) { answer = $0 }
        guard run(until: { answer != nil }), let answer else { throw HarnessFailure("no answer to append") }
        return answer
    }

    /// Appends until an attempt succeeds (a shard coming back answers CLUSTERDOWN or refuses
    /// connections for a moment), one attempt per answer, `pause` apart; nil past `seconds`.
    func appendWhenAvailable(_ log: RoomEventLog, room: String, event: String, seconds: Double = 30,
                             pause: TimeSpan = .milliseconds(100)) -> RoomAppend? {
        var outcome: RoomAppend?
        func attempt() {
            log.append(room: room, event: Array(event.utf8)) { [unowned self] result in
                if case .success(let append) = result {
                    outcome = append
                } else {
                    loop.schedule(at: .now() + pause) { attempt() }
                }
            }
        }
        attempt()
        run(seconds: seconds) { outcome != nil }
        return outcome
    }

    func newestEvents(_ log: RoomEventLog, room: String, after: Int64?, before: Int64?, limit: Int) throws -> [RoomEvent] {
        var answer: Result<[RoomEvent], RoomStoreError>?
        log.newestEvents(room: room, after: after, before: before, limit: limit) { answer = $0 }
        guard run(until: { answer != nil }), let answer else { throw HarnessFailure("no answer to XREVRANGE") }
        return try answer.get()
    }

    func events(_ log: RoomEventLog, room: String, after seq: Int64, limit: Int) throws -> [RoomEvent] {
        var answer: Result<[RoomEvent], RoomStoreError>?
        log.events(room: room, after: seq, limit: limit) { answer = $0 }
        guard run(until: { answer != nil }), let answer else { throw HarnessFailure("no answer to XRANGE") }
        return try answer.get()
    }
}

extension RedisHarness {
    /// Runs `body` on a dedicated thread with a new harness and a redis-server of its own,
    /// stopped afterwards.
    static func withServer(_ options: RedisServerProcess.Options = .init(),
                           _ body: @escaping @Sendable (RedisHarness, RedisServerProcess) throws -> Void) async throws {
        let server = try RedisServerProcess(options: options)
        defer { server.stop() }
        try await onDedicatedThread { try body(try RedisHarness(), server) }
    }

    /// The same with a 3-master Redis Cluster.
    static func withCluster(_ options: RedisServerProcess.Options = .init(),
                            _ body: @escaping @Sendable (RedisHarness, RedisClusterProcesses) throws -> Void) async throws {
        let cluster = try RedisClusterProcesses(options: options)
        defer { cluster.stop() }
        try await onDedicatedThread { try body(try RedisHarness(), cluster) }
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Result where Success == RedisReply {
    var reply: RedisReply? { try? get() }
}
