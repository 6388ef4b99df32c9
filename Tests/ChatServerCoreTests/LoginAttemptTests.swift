import ChatProtocol
import ChatServerCore
import Testing

/// Password attempts counted when they start (PROTOCOL.md section 7, issue 23 finding 1): guesses
/// still being hashed count toward the limit, on one server and across nodes, whatever order the
/// verdicts come back in; a right password takes its count back.
@Suite struct LoginAttemptTests {
    /// As many hashing workers as attempts: every attempt taken on is hashed at once, the
    /// interleaving of the finding (with fewer, the rest wait their turn, counted all the same).
    static var manyWorkers: ChatServerConfiguration {
        var configuration = ChatServerConfiguration()
        configuration.passwordTasksRunning = 64
        return configuration
    }

    /// Sends a hello with `password` for `nick` on a new connection and leaves its password work
    /// undone; returns the tasks it asked for and the outbox.
    static func helloInFlight(_ harness: Harness, _ client: ClientID, nick: String, password: String,
                              address: String? = nil) -> (tasks: [PasswordTask], out: Outbox) {
        harness.connect(client, address: address, certificate: nil)
        let out = harness.send(.join(nick: nick, peer: Harness.peer(client), room: "lobby", password: password), from: client)
        return (harness.passwordTasks(in: out), out)
    }

    /// Ten guesses for one account, all in flight at once from ten addresses: five are hashed,
    /// five refused at once; the right password after them too, nothing hashed.
    @Test func guessesInFlightCountForTheAccount() throws {
        let harness = try Harness(configuration: Self.manyWorkers)
        harness.registered(1, nick: "alice", password: "right-pass")
        var tasks: [PasswordTask] = []
        var refused = 0
        for client in UInt64(10)..<20 {
            let attempt = Self.helloInFlight(harness, client, nick: "alice", password: "wrong-pass", address: "10.1.0.\(client)")
            tasks += attempt.tasks
            if attempt.tasks.isEmpty, attempt.out.errorCodes(to: client) == ["bad-login"] { refused += 1 }
        }
        #expect(tasks.count == 5)
        #expect(refused == 5)
        let right = Self.helloInFlight(harness, 30, nick: "alice", password: "right-pass", address: "10.2.0.1")
        #expect(right.tasks.isEmpty)
        #expect(right.out.errorCodes(to: 30) == ["bad-login"])
        // The verdicts, in reverse order: each wrong, none frees a place.
        for task in tasks.reversed() { harness.finish(task) }
        #expect(Self.helloInFlight(harness, 31, nick: "alice", password: "right-pass", address: "10.2.0.2").tasks.isEmpty)
    }

    /// Guesses from one address over several accounts, in flight at once: five are hashed.
    @Test func guessesInFlightCountForTheAddress() throws {
        // One connection checks one password at a time, so each guess has a connection of its own.
        let fresh = try Harness(configuration: Self.manyWorkers)
        for (client, name) in [(1, "alice"), (2, "bob"), (3, "carol")] {
            fresh.registered(ClientID(client), nick: name, password: "\(name)-pass")
        }
        var inFlight: [PasswordTask] = []
        for (index, name) in ["alice", "bob", "carol", "alice", "bob", "carol", "alice"].enumerated() {
            let client = ClientID(10 + index)
            fresh.hello(client, nick: "guest\(index)", address: "192.0.2.7")
            inFlight += fresh.passwordTasks(in: fresh.send(.login(account: name, password: "guess-guess"), from: client))
        }
        #expect(inFlight.count == 5)
        fresh.hello(30, nick: "other", address: "192.0.2.7")
        let right = fresh.send(.login(account: "bob", password: "bob-pass"), from: 30)
        #expect(right.errorCodes(to: 30) == ["bad-login"])
        #expect(fresh.passwordTasks(in: right).isEmpty)
    }

    /// A right password takes its count back: four wrong and one right in flight fill the limit;
    /// once the right one's verdict is in, one more attempt is hashed.
    @Test func rightPasswordTakesItsCountBack() throws {
        let harness = try Harness(configuration: Self.manyWorkers)
        harness.registered(1, nick: "alice", password: "right-pass")
        var wrong: [PasswordTask] = []
        for client in UInt64(10)..<14 {
            wrong += Self.helloInFlight(harness, client, nick: "alice", password: "wrong-pass").tasks
        }
        let right = try #require(Self.helloInFlight(harness, 20, nick: "alice", password: "right-pass").tasks.first)
        #expect(wrong.count == 4)
        #expect(Self.helloInFlight(harness, 21, nick: "alice", password: "right-pass").tasks.isEmpty)
        #expect(harness.finish(right).chat(to: 20).first?.account == "alice")
        #expect(Self.helloInFlight(harness, 22, nick: "alice", password: "right-pass").tasks.count == 1)
    }

    /// A failed check (out of memory) takes its count back: nothing was learned.
    @Test func failedCheckTakesItsCountBack() throws {
        let harness = try Harness(configuration: Self.manyWorkers)
        harness.registered(1, nick: "alice", password: "right-pass")
        for client in UInt64(10)..<15 {
            let task = try #require(Self.helloInFlight(harness, client, nick: "alice", password: "wrong-pass").tasks.first)
            #expect(harness.finish(task, .failed("no memory")).errorCodes(to: client) == ["unavailable"])
        }
        #expect(Self.helloInFlight(harness, 20, nick: "alice", password: "right-pass").tasks.count == 1)
    }

    /// Over two nodes: ten guesses in flight at once, five through each node, whatever order the
    /// store takes their reservations in: five are hashed, and the right password is refused on
    /// both nodes.
    @Test func guessesInFlightCountAcrossNodes() throws {
        let world = SharedLogWorld()
        try world.node("a", configuration: Self.manyWorkers)
        try world.node("b", configuration: Self.manyWorkers)
        world.login(1, nick: "alice", on: "a")
        world.send(.register(password: "correct horse"), from: 1, on: "a")
        world.settle()
        var client: ClientID = 10
        func guess(_ password: String, on node: String) -> ClientID {
            client += 1
            world.connect(client, on: node)
            world.send(.join(nick: "alice", peer: SharedLogWorld.peer(client), room: "lobby", password: password), from: client, on: node)
            return client
        }
        let guesses = (0..<10).map { guess("wrong horse", on: $0 % 2 == 0 ? "a" : "b") }
        // Every account read and every reservation first, the hashes after: all ten are in flight.
        world.settle { step in if case .password = step { false } else { true } }
        let hashing = world.queue.filter { if case .password = $0 { true } else { false } }.count
        #expect(hashing == 5)
        world.settle()
        let answers = guesses.map { id in world.nodes[id % 2 == 1 ? "a" : "b"]!.chat(to: id).first { $0.type == "error" }?.code }
        #expect(answers == Array(repeating: "bad-login", count: 10))
        for node in ["a", "b"] {
            let right = guess("correct horse", on: node)
            world.settle()
            #expect(world.nodes[node]!.chat(to: right).first { $0.type == "error" || $0.type == "welcome" }?.code == "bad-login")
        }
    }

    /// A store that cannot count the attempt refuses it (`unavailable`), never lets it through
    /// uncounted; a client gone before the store answered gets its count taken back.
    @Test func storeDownRefusesTheAttempt() throws {
        let world = SharedLogWorld()
        try world.node("a")
        world.login(1, nick: "alice", on: "a")
        world.send(.register(password: "correct horse"), from: 1, on: "a")
        world.settle()
        world.attemptsUnavailable = true
        world.connect(2, on: "a")
        world.send(.join(nick: "alice", peer: SharedLogWorld.peer(2), room: "lobby", password: "correct horse"), from: 2, on: "a")
        world.settle()
        #expect(world.nodes["a"]!.chat(to: 2).first?.code == "unavailable")
        world.attemptsUnavailable = false
        world.connect(3, on: "a")
        world.send(.join(nick: "alice", peer: SharedLogWorld.peer(3), room: "lobby", password: "wrong horse"), from: 3, on: "a")
        world.settle { step in if case .reserveAttempt = step { false } else { true } }
        world.disconnect(3, on: "a")
        world.settle()
        #expect(world.attempts.values.allSatisfy { $0.isEmpty })
    }
}

/// A login for a name that is no account costs what a wrong password costs (issue 23, finding
/// 17: 0.9 ms against 43 ms told them apart): the same work handed to the hashing workers (a
/// check against the decoy hash), the same answer, the same count toward the limit.
@Suite struct DecoyCheckTests {
    /// What a login of `name` with a wrong password from a fresh connection asks for and answers.
    static func login(_ harness: Harness, _ client: ClientID, _ name: String) -> (tasks: [PasswordTask], answer: ChatMessage?) {
        harness.hello(client, nick: "guest\(client)")
        let asked = harness.send(.login(account: name, password: "wrong-guess"), from: client)
        let tasks = harness.passwordTasks(in: asked)
        let answer = harness.finishPasswordWork(asked).chat(to: client).last { $0.type == "error" }
        return (tasks, answer)
    }

    @Test func missingAccountIsCheckedLikeAWrongPassword() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "right-pass")
        harness.hello(2, nick: "certonly", certificate: Harness.fingerprint(2))
        harness.register(2, password: nil)
        let wrong = Self.login(harness, 10, "alice")
        let missing = Self.login(harness, 11, "nobody")
        let withoutPassword = Self.login(harness, 12, "certonly")
        for attempt in [wrong, missing, withoutPassword] {
            #expect(attempt.tasks.count == 1, "one check handed to the workers")
            #expect(attempt.answer?.code == "bad-login")
            #expect(attempt.answer?.text == wrong.answer?.text)
        }
        #expect(missing.tasks.first?.work == .decoy)
        #expect(withoutPassword.tasks.first?.work == .decoy)
        if case .verify = wrong.tasks.first?.work {} else { Issue.record("a real account's hash is checked") }
    }

    /// Five wrong passwords lock a name that is no account as they lock an account: the sixth
    /// attempt of each is refused unchecked, alike.
    @Test func missingAccountLocksLikeAnAccount() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "right-pass")
        for name in ["alice", "nobody"] {
            for index in 0..<5 { _ = Self.login(harness, ClientID(100 + index), name) }
            let sixth = Self.login(harness, 200, name)
            #expect(sixth.tasks.isEmpty)
            #expect(sixth.answer?.text == "too many wrong passwords lately; wait a minute")
            for client in ClientID(100)..<105 { harness.disconnect(client) }
            harness.disconnect(200)
        }
    }
}
