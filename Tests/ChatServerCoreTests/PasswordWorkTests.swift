import ChatProtocol
import ChatServerCore
import Testing

/// Password work as actions and inputs (PROTOCOL.md section 7, docs/PROTOCOL.md): results fed by
/// hand in any order, failures, results for clients since gone, the bounds on queued work and on
/// messages waiting for a verdict, and the wrong-password limit.
@Suite struct PasswordWorkTests {
    /// Two hellos' checks answered in the opposite order each complete the right connection.
    @Test func resultsInAnyOrder() throws {
        var configuration = ChatServerConfiguration()
        configuration.passwordTasksRunning = 2
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "alice", password: "alice-pass")
        harness.registered(2, nick: "bob", password: "bob-passwd")
        harness.disconnect(1)
        harness.disconnect(2)
        harness.connect(3, certificate: nil)
        harness.connect(4, certificate: nil)
        let first = harness.passwordTasks(in: harness.send(.join(nick: "alice", peer: Harness.peer(3), room: "lobby",
                                                                 password: "alice-pass"), from: 3))
        let second = harness.passwordTasks(in: harness.send(.join(nick: "bob", peer: Harness.peer(4), room: "lobby",
                                                                  password: "bob-passwd"), from: 4))
        let bobDone = harness.finish(try #require(second.first))
        #expect(bobDone.chat(to: 4).first?.account == "bob")
        #expect(bobDone.chat(to: 3).filter { $0.type == "welcome" }.isEmpty)
        let aliceDone = harness.finish(try #require(first.first))
        #expect(aliceDone.chat(to: 3).first?.account == "alice")
    }

    /// A result for a client that has gone changes nothing and answers nobody; an unknown ticket is only logged.
    @Test func resultForDepartedClient() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "alice-pass")
        harness.disconnect(1)
        harness.connect(2, certificate: nil)
        let task = try #require(harness.passwordTasks(in: harness.send(.join(nick: "alice", peer: Harness.peer(2), room: "lobby",
                                                                             password: "alice-pass"), from: 2)).first)
        harness.disconnect(2)
        let late = harness.finish(task)
        #expect(late.effects.isEmpty)
        #expect(harness.state.pendingPasswordTasks == 0)
        #expect(harness.finish(task).effects.isEmpty)
        #expect(harness.state.connectedClientCount == 0)
    }

    /// A failed hash refuses the registration with unavailable; a failed check refuses the login the same way (not counted as wrong).
    @Test func failuresAreRefusals() throws {
        let harness = try Harness()
        harness.hello(1, nick: "alice")
        let task = try #require(harness.passwordTasks(in: harness.send(.register(password: "password1"), from: 1)).first)
        #expect(harness.finish(task, .failed("out of memory")).errorCodes(to: 1) == ["unavailable"])
        #expect(harness.state.account(of: 1) == nil)
        harness.register(1)
        harness.hello(2, nick: "bob")
        for _ in 0..<6 {
            let check = try #require(harness.passwordTasks(in: harness.send(.login(account: "alice", password: "password1"), from: 2)).first)
            #expect(harness.finish(check, .failed("no memory")).errorCodes(to: 2) == ["unavailable"])
        }
        // Failures were not wrong passwords: the account is not locked.
        #expect(harness.finishPasswordWork(harness.send(.login(account: "alice", password: "password1"), from: 2))
            .accountNotices(to: 2).first?.text == "logged-in")
    }

    /// While a register is hashed, the messages after it wait and then run in order: the msg after register carries the account.
    @Test func messagesWaitForTheVerdictInOrder() throws {
        let harness = try Harness()
        harness.hello(1, nick: "alice")
        harness.hello(2, nick: "bob")
        let asked = harness.send(.register(password: "password1"), from: 1)
        let meanwhile = harness.say("first", from: 1) + harness.say("second", from: 1)
        #expect(meanwhile.chat(to: 2).isEmpty)
        // Presence and typing are not held.
        #expect(!harness.send(.status("away"), from: 1, on: .presence).presence(to: 2).isEmpty)
        let done = harness.finish(try #require(harness.passwordTasks(in: asked).first))
        #expect(done.chat(to: 1).map(\.type) == ["account", "ack", "ack"])
        #expect(done.chat(to: 2).map(\.text) == ["first", "second"])
        #expect(done.chat(to: 2).allSatisfy { $0.account == "alice" })
    }

    /// A held login followed by another login: the second waits for the first's verdict, then is answered account-exists.
    @Test func secondTaskWaitsForTheFirst() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "password1")
        harness.hello(2, nick: "guest")
        let first = harness.send(.login(account: "alice", password: "password1"), from: 2)
        let second = harness.send(.login(account: "alice", password: "password1"), from: 2)
        #expect(harness.passwordTasks(in: second).isEmpty)
        let done = harness.finish(try #require(harness.passwordTasks(in: first).first))
        #expect(done.accountNotices(to: 2).count == 1)
        #expect(done.errorCodes(to: 2) == ["account-exists"])
    }

    /// Beyond --password-queue tasks taken on (one hashing, the rest waiting their turn), a request is rate-limited and nothing
    /// is queued; a finished task gives the next its turn.
    @Test func queueIsBounded() throws {
        var configuration = ChatServerConfiguration()
        configuration.passwordQueueLimit = 2
        let harness = try Harness(configuration: configuration)
        var tasks: [PasswordTask] = []
        for client in UInt64(1)...3 {
            harness.hello(client, nick: "user\(client)")
            let out = harness.send(.register(password: "password1"), from: client)
            tasks += harness.passwordTasks(in: out)
            if client == 3 {
                #expect(out.errorCodes(to: 3) == ["rate-limited"])
                #expect(out.closes.isEmpty)
            }
        }
        #expect(tasks.count == 1)
        #expect(harness.state.pendingPasswordTasks == 2)
        #expect(harness.state.waitingPasswordTasks == 1)
        let next = harness.finish(tasks[0])
        #expect(harness.passwordTasks(in: next).count == 1, "the waiting one's turn")
        harness.send(.register(password: "password1"), from: 3)
        #expect(harness.state.waitingPasswordTasks == 1)
    }

    /// A departed client's task still counts until its result: the work is still queued in the glue.
    @Test func departedClientsTaskStillCounts() throws {
        var configuration = ChatServerConfiguration()
        configuration.passwordQueueLimit = 1
        let harness = try Harness(configuration: configuration)
        harness.hello(1, nick: "alice")
        let task = try #require(harness.passwordTasks(in: harness.send(.register(password: "password1"), from: 1)).first)
        harness.disconnect(1)
        harness.hello(2, nick: "bob")
        #expect(harness.send(.register(password: "password1"), from: 2).errorCodes(to: 2) == ["rate-limited"])
        harness.finish(task)
        #expect(harness.passwordTasks(in: harness.send(.register(password: "password1"), from: 2)).count == 1)
    }

    /// Messages waiting for a verdict are bounded: beyond the limit rate-limited, the rest still run.
    @Test func heldMessagesAreBounded() throws {
        var configuration = ChatServerConfiguration()
        configuration.heldMessageLimit = 3
        configuration.floodBurst = 1_000
        let harness = try Harness(configuration: configuration)
        harness.hello(1, nick: "alice")
        let asked = harness.send(.register(password: "password1"), from: 1)
        var refused = 0
        for index in 0..<5 { refused += harness.say("m\(index)", from: 1).errorCodes(to: 1).filter { $0 == "rate-limited" }.count }
        #expect(refused == 2)
        let done = harness.finish(try #require(harness.passwordTasks(in: asked).first))
        #expect(done.chat(to: 1).filter { $0.type == "ack" }.count == 3)
    }

    /// Five wrong passwords for an account in 60 s lock it (even the right one is bad-login, nothing hashed) until the minute has passed.
    @Test func wrongPasswordsLockTheAccountForAMinute() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "right-pass")
        for attempt in 0..<5 {
            let out = harness.hello(UInt64(10 + attempt), nick: "alice", password: "wrong-pass", address: "10.1.0.\(attempt)")
            #expect(out.errorCodes(to: UInt64(10 + attempt)) == ["bad-login"])
        }
        // Another address, the right password: locked all the same, and no task is made.
        harness.connect(20, address: "10.2.0.1", certificate: nil)
        let locked = harness.send(.join(nick: "alice", peer: Harness.peer(20), room: "lobby", password: "right-pass"), from: 20)
        #expect(locked.errorCodes(to: 20) == ["bad-login"])
        #expect(harness.passwordTasks(in: locked).isEmpty)
        harness.advance(60_001)
        let later = harness.finishPasswordWork(harness.send(.join(nick: "alice", peer: Harness.peer(20), room: "lobby",
                                                                   password: "right-pass"), from: 20))
        #expect(later.chat(to: 20).first?.account == "alice")
    }

    /// Five wrong passwords from one address lock that address for every account; other addresses are not affected.
    @Test func wrongPasswordsLockTheAddress() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "alice-pass")
        harness.registered(2, nick: "bob", password: "bob-passwd")
        harness.hello(3, nick: "mallory", address: "192.0.2.7")
        for name in ["alice", "bob", "alice", "nobody", "bob"] {
            harness.finishPasswordWork(harness.send(.login(account: name, password: "guess-guess"), from: 3))
        }
        let locked = harness.send(.login(account: "bob", password: "bob-passwd"), from: 3)
        #expect(locked.errorCodes(to: 3) == ["bad-login"])
        #expect(harness.passwordTasks(in: locked).isEmpty)
        harness.hello(4, nick: "honest", address: "198.51.100.9")
        let fine = harness.finishPasswordWork(harness.send(.login(account: "bob", password: "bob-passwd"), from: 4))
        #expect(fine.accountNotices(to: 4).first?.text == "logged-in")
    }

    /// At most `registrationsPerAddress` registrations from one address (PROTOCOL.md section 7 item
    /// 8), with a password or a certificate alone, counted before the hash: one more is
    /// `quota-exceeded` with nothing hashed; another address and a shared (exempt) one still
    /// register. Through the local store (its adapter counts, as Redis does on a cluster).
    @Test func registrationsPerAddressAreCounted() throws {
        var configuration = ChatServerConfiguration()
        configuration.registrationsPerAddress = 2
        let harness = try Harness(configuration: configuration)
        harness.hello(1, nick: "first", address: "192.0.2.7")
        harness.hello(2, nick: "second", certificate: Harness.fingerprint(2), address: "192.0.2.7")
        harness.hello(3, nick: "third", address: "192.0.2.7")
        harness.hello(4, nick: "fourth", certificate: Harness.fingerprint(4), address: "192.0.2.7")
        harness.hello(5, nick: "elsewhere", address: "198.51.100.9")
        harness.hello(6, nick: "shared", address: "127.0.0.1", shared: true)
        #expect(harness.register(1).accountNotices(to: 1).first?.text == "registered")
        #expect(harness.register(2, password: nil).accountNotices(to: 2).first?.text == "registered")
        let refused = harness.send(.register(password: "password1"), from: 3)
        #expect(refused.errorCodes(to: 3) == ["quota-exceeded"])
        #expect(harness.passwordTasks(in: refused).isEmpty)
        #expect(harness.register(4, password: nil).errorCodes(to: 4) == ["quota-exceeded"])
        #expect(harness.register(5).accountNotices(to: 5).first?.text == "registered")
        #expect(harness.register(6).accountNotices(to: 6).first?.text == "registered")
    }

    /// A shared (exempt) address is not locked by wrong passwords from it: only the accounts tried are.
    @Test func sharedAddressIsNotLocked() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "alice-pass")
        harness.registered(2, nick: "bob", password: "bob-passwd")
        harness.hello(3, nick: "tester", address: "127.0.0.1", shared: true)
        for name in ["x1", "x2", "x3", "x4", "x5", "x6"] {
            harness.finishPasswordWork(harness.send(.login(account: name, password: "guess-guess"), from: 3))
        }
        let fine = harness.finishPasswordWork(harness.send(.login(account: "bob", password: "bob-passwd"), from: 3))
        #expect(fine.accountNotices(to: 3).first?.text == "logged-in")
    }

    /// A locked account still logs in by its bound certificate: guessing passwords cannot lock its owner out.
    @Test func certificateLoginIgnoresTheLock() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "right-pass", certificate: Harness.fingerprint(1))
        harness.disconnect(1)
        for attempt in 0..<6 { harness.hello(UInt64(10 + attempt), nick: "alice", password: "wrong-pass") }
        #expect(harness.hello(30, nick: "alice", certificate: Harness.fingerprint(1)).chat(to: 30).first?.account == "alice")
    }

    /// Wrong passwords are counted in a bounded table: past the bound the oldest keys are forgotten.
    @Test func failureTableIsBounded() throws {
        var configuration = ChatServerConfiguration()
        configuration.loginFailureKeys = 4
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "alice", password: "right-pass")
        // Wrong passwords from 20 addresses, each counted; the table keeps at most 4 per kind.
        for index in 0..<20 {
            harness.hello(UInt64(100 + index), nick: "alice", password: "wrong-pass", address: "10.9.0.\(index)")
            harness.advance(1)
        }
        #expect(harness.localStore!.adapter.trackedLoginFailureKeys <= 1 + 4)
        // The account itself is one key: five of the twenty locked it.
        let out = harness.hello(200, nick: "alice", password: "right-pass", address: "10.9.1.1")
        #expect(out.errorCodes(to: 200) == ["bad-login"])
    }
}
