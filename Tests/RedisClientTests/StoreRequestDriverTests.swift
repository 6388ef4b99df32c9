import ChatServerCore
import ClusterStore
import EventRuntime
import RedisClient
import Testing
import TestSupport

/// ``StoreRequestDriver`` against a real redis-server: a step's commands go out at once and their
/// results come back together in the step's order, error replies as failures, a wait is a timer
/// and resumes the request, `then` goes out before the outcome is handed on; and the requests of
/// a Redis Cluster's hello, one step after another.
@Suite struct StoreRequestDriverTests {
    /// A request that exercises the driver: three commands at once (one an error reply), a wait,
    /// a step of none, and a `then`.
    struct Probe: StoreRequest {
        var stage = 0
        var seen: [String] = []

        func start() -> StoreStep<[String]> {
            .send([StoreCommand(RedisCommand("SET", "probe", "1"), key: "probe"),
                   StoreCommand(RedisCommand("INCR", "probe"), key: "probe"),
                   StoreCommand(RedisCommand("HGET", "probe", "field"), key: "probe")])
        }

        mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<[String]> {
            stage += 1
            seen += results.map { result in
                switch result {
                case .success(let reply): reply.text ?? "\(reply)"
                case .failure(let error): "failure \(error)".prefix(25).description
                }
            }
            switch stage {
            case 1: return .wait(.milliseconds(30))
            case 2: return .send([])
            case 3: return .send([StoreCommand(RedisCommand("GET", "probe"), key: "probe")])
            default: return .done(seen, then: [StoreCommand(RedisCommand("SET", "after", "then"), key: "after")])
            }
        }

        mutating func resume() -> StoreStep<[String]> { .send([StoreCommand(RedisCommand("GET", "probe"), key: "probe")]) }
    }

    @Test func theDriverPerformsEveryStep() async throws {
        try await RedisHarness.withServer { harness, server in
            let driver = StoreRequestDriver(client: try harness.client(RedisHarness.standalone(server)), loop: harness.loop)
            var outcome: [String]?
            let started = MonotonicTime.now()
            driver.run(Probe()) { outcome = $0 }
            #expect(harness.run { outcome != nil })
            #expect(MonotonicTime.now() - started >= .milliseconds(30))
            #expect(outcome == ["OK", "integer(2)", "failure rejected(\"WRONGTY", "2", "2"])
            #expect(try server.cli("GET", "after") == "then")
        }
    }

    /// A Redis Cluster's hello, one slot at a time, on a real Redis: the device and its hold,
    /// another device's nick skipped, the next taken and held, the device's lease completed.
    @Test func aHelloStepByStep() async throws {
        try await RedisHarness.withServer { harness, server in
            let driver = StoreRequestDriver(client: try harness.client(RedisHarness.standalone(server)), loop: harness.loop)
            _ = try server.cli("SET", Leases.nick("alice"), "n2/other")
            var outcome: ClaimOutcome<HelloClaim>?
            let claim = HelloLeaseClaim(digest: "d1", client: 17, account: nil, candidates: ["Alice", "Alice2"], address: "10.0.0.1",
                                        format: LeaseFormat(node: "n1"), sharded: true)
            driver.run(claim) { outcome = $0 }
            #expect(harness.run { outcome != nil })
            #expect(outcome == .answered(HelloClaim(deviceTaken: true, previous: nil, nick: "Alice2")))
            #expect(try server.cli("GET", Leases.peer("d1")) == "n1/17/Alice2/-/10.0.0.1")
            #expect(try server.cli("GET", Leases.nick("alice2")) == "n1/d1")
            #expect(try server.cli("SISMEMBER", Leases.holds(node: "n1"), Leases.nick("alice2")) == "1")
        }
    }

    /// A stopped driver ends what is in flight there: a request waiting to retry is not resumed.
    @Test func aStoppedDriverDropsWhatIsInFlight() async throws {
        try await RedisHarness.withServer { harness, server in
            let driver = StoreRequestDriver(client: try harness.client(RedisHarness.standalone(server)), loop: harness.loop)
            var outcome: [String]?
            driver.run(Probe()) { outcome = $0 }
            // The first step's replies arrive, then the request waits 30 ms: stopped meanwhile.
            var waited = false
            harness.loop.schedule(at: .now() + .milliseconds(5)) { driver.stop() }
            harness.loop.schedule(at: .now() + .milliseconds(200)) { waited = true }
            #expect(harness.run { waited })
            #expect(outcome == nil)
            #expect(try server.cli("EXISTS", "after") == "0")
        }
    }
}
