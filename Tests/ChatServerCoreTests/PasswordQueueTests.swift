import ChatProtocol
import ChatServerCore
import Testing

/// The order password tasks get a worker in (docs/PROTOCOL.md sections 7-8 item 4; issue 23,
/// finding 8): logins before registrations and password changes, each key (address, or account
/// on a shared address) in turn, a login or a lighter key taking the place of the heaviest key's
/// newest waiting task when the queue is full, and every refusal a strike toward FLOODING.
@Suite struct PasswordQueueTests {
    /// One worker, a queue of `limit`.
    static func harness(limit: Int = 64) throws -> Harness {
        var configuration = ChatServerConfiguration()
        configuration.passwordQueueLimit = limit
        configuration.passwordTasksRunning = 1
        return try Harness(configuration: configuration)
    }

    /// A logged-in connection `client` of account `name` (registered through another connection
    /// that has gone), from `address`, by a bound certificate: its password changes are one hash
    /// each (no current password to check first).
    static func loggedIn(_ harness: Harness, _ client: ClientID, _ name: String, address: String) {
        let certificate = Harness.fingerprint(Int(client))
        harness.registered(client + 1_000, nick: name, password: "\(name)-pass", certificate: certificate)
        harness.disconnect(client + 1_000)
        harness.hello(client, nick: name, certificate: certificate, address: address)
    }

    /// Runs the task and returns the next one handed to the glue.
    static func finishAndTakeNext(_ harness: Harness, _ task: PasswordTask) -> PasswordTask? {
        harness.passwordTasks(in: harness.finish(task)).first
    }

    /// A login that arrives after three password changes goes before them.
    @Test func loginsGoBeforeChanges() throws {
        let harness = try Self.harness()
        for (client, name) in [(1, "alice"), (2, "bob"), (3, "carol"), (4, "dave")] {
            Self.loggedIn(harness, ClientID(client), name, address: "10.0.0.\(client)")
        }
        harness.registered(5, nick: "erin", password: "erin-pass")
        harness.disconnect(5)
        let running = try #require(harness.passwordTasks(in: harness.send(.changePassword("new-pass-1"), from: 1)).first)
        for client in ClientID(2)...4 { #expect(harness.passwordTasks(in: harness.send(.changePassword("new-pass-1"), from: client)).isEmpty) }
        harness.connect(6, address: "10.0.0.6", certificate: nil)
        harness.send(.join(nick: "erin", peer: Harness.peer(6), room: "lobby", password: "erin-pass"), from: 6)
        let next = try #require(Self.finishAndTakeNext(harness, running))
        #expect(next.work != .hash, "the login's check, not a change's hash")
        #expect(harness.finish(next).chat(to: 6).first?.account == "erin")
    }

    /// Four changes from one address, then one from another: the addresses take turns (the first
    /// address's first change was running already when the others came).
    @Test func eachKeyInTurn() throws {
        let harness = try Self.harness()
        for client in ClientID(1)...4 { Self.loggedIn(harness, client, "busy\(client)", address: "192.0.2.1") }
        Self.loggedIn(harness, 5, "quiet", address: "198.51.100.1")
        var order: [ClientID] = []
        var running = try #require(harness.passwordTasks(in: harness.send(.changePassword("new-pass-1"), from: 1)).first)
        for client in ClientID(2)...5 { harness.send(.changePassword("new-pass-1"), from: client) }
        for _ in 0..<4 {
            let done = harness.finish(running)
            order += (1...5).filter { !done.accountNotices(to: $0).isEmpty }
            running = try #require(harness.passwordTasks(in: done).first)
        }
        let last = harness.finish(running)
        order += (1...5).filter { !last.accountNotices(to: $0).isEmpty }
        #expect(order == [1, 2, 5, 3, 4])
    }

    /// A full queue of changes: a login takes the place of the newest waiting change, whose client
    /// is told rate-limited; the login runs next.
    @Test func loginTakesTheNewestChangesPlace() throws {
        let harness = try Self.harness(limit: 3)
        for client in ClientID(1)...3 { Self.loggedIn(harness, client, "user\(client)", address: "10.0.0.\(client)") }
        harness.registered(9, nick: "erin", password: "erin-pass")
        harness.disconnect(9)
        let running = try #require(harness.passwordTasks(in: harness.send(.changePassword("new-pass-1"), from: 1)).first)
        harness.send(.changePassword("new-pass-1"), from: 2)
        harness.send(.changePassword("new-pass-1"), from: 3)
        harness.connect(6, address: "10.0.0.6", certificate: nil)
        let login = harness.send(.join(nick: "erin", peer: Harness.peer(6), room: "lobby", password: "erin-pass"), from: 6)
        #expect(login.errorCodes(to: 3) == ["rate-limited"])
        #expect(login.errorCodes(to: 6).isEmpty)
        let next = try #require(Self.finishAndTakeNext(harness, running))
        #expect(harness.finish(next).chat(to: 6).first?.account == "erin")
    }

    /// A full queue held by one address: a newcomer from another takes the place of that
    /// address's newest, until every address holds as many; then newcomers are refused.
    @Test func heaviestKeyGivesWay() throws {
        let harness = try Self.harness(limit: 4)
        for client in ClientID(1)...4 { Self.loggedIn(harness, client, "busy\(client)", address: "192.0.2.1") }
        for (client, address) in [(ClientID(5), "198.51.100.1"), (6, "198.51.100.2"), (7, "198.51.100.3")] {
            Self.loggedIn(harness, client, "other\(client)", address: address)
        }
        for client in ClientID(1)...4 { harness.send(.changePassword("new-pass-1"), from: client) }
        #expect(harness.send(.changePassword("new-pass-1"), from: 5).errorCodes(to: 4) == ["rate-limited"])
        #expect(harness.send(.changePassword("new-pass-1"), from: 6).errorCodes(to: 3) == ["rate-limited"])
        // 192.0.2.1 has one waiting (and one running), each other address one: no more than its share.
        #expect(harness.send(.changePassword("new-pass-1"), from: 7).errorCodes(to: 7) == ["rate-limited"])
        #expect(harness.state.pendingPasswordTasks == 4)
    }

    /// Refusals of a full queue are strikes: a connection that keeps sending password changes into
    /// it is closed with FLOODING at the tenth.
    @Test func refusalsAreStrikes() throws {
        let harness = try Self.harness(limit: 1)
        Self.loggedIn(harness, 1, "alice", address: "10.0.0.1")
        Self.loggedIn(harness, 2, "mallory", address: "10.0.0.2")
        harness.send(.changePassword("new-pass-1"), from: 1)
        var closes: [ClientID] = []
        for _ in 0..<10 { closes += harness.send(.changePassword("new-pass-1"), from: 2).closes.map(\.client) }
        #expect(closes == [2])
    }

    /// A waiting login of a client that has gone is dropped and its count taken back: nothing was
    /// checked; five such do not lock the account.
    @Test func departedClientsWaitingTaskIsDropped() throws {
        let harness = try Self.harness()
        Self.loggedIn(harness, 1, "alice", address: "10.0.0.1")
        let running = try #require(harness.passwordTasks(in: harness.send(.changePassword("new-pass-1"), from: 1)).first)
        for client in ClientID(10)..<16 {
            harness.connect(client, certificate: nil)
            harness.send(.join(nick: "alice", peer: Harness.peer(client), room: "lobby", password: "wrong-pass"), from: client)
            harness.disconnect(client)
        }
        #expect(harness.state.pendingPasswordTasks == 1)
        #expect(harness.passwordTasks(in: harness.finish(running)).isEmpty)
        let right = harness.hello(20, nick: "alice", password: "new-pass-1")
        #expect(right.chat(to: 20).first?.account == "alice")
    }
}
