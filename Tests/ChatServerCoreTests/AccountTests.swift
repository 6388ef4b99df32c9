import ChatProtocol
import ChatServerCore
import Testing

/// PROTOCOL.md section 7: `register`, logging in at hello and with `login`, `password`,
/// `certificate`, reserved nicks, several connections per account, `account` on what is relayed.
@Suite struct AccountTests {
    // MARK: register

    /// register hashes the password off the core (an action), then answers `account registered` and the connection is logged in.
    @Test func registerWithPassword() throws {
        let harness = try Harness()
        harness.hello(1, nick: "alice")
        let asked = harness.send(.register(password: "password1"), from: 1)
        let tasks = harness.passwordTasks(in: asked)
        #expect(tasks.count == 1)
        #expect(tasks.first?.work == .hash)
        #expect(tasks.first?.password == "password1")
        #expect(asked.chat(to: 1).isEmpty)
        let done = harness.finish(try #require(tasks.first))
        #expect(done.accountNotices(to: 1).map(\.text) == ["registered"])
        #expect(done.accountNotices(to: 1).first?.account == "alice")
        #expect(done.accountNotices(to: 1).first?.sender == "alice")
        #expect(harness.state.account(of: 1) == "alice")
    }

    /// register without a password binds the certificate, which alone is then the credential; without one it is weak-password.
    @Test func registerWithCertificateOnly() throws {
        let harness = try Harness()
        harness.hello(1, nick: "alice", certificate: Harness.fingerprint(1))
        let out = harness.send(.register(password: nil), from: 1)
        #expect(harness.passwordTasks(in: out).isEmpty)
        #expect(out.accountNotices(to: 1).map(\.text) == ["registered"])
        harness.hello(2, nick: "bob")
        #expect(harness.send(.register(password: nil), from: 2).errorCodes(to: 2) == ["weak-password"])
    }

    /// Passwords are 8 to 256 bytes: 7 and 257 are weak-password, 8 and 256 are taken.
    @Test(arguments: [(7, false), (8, true), (256, true), (257, false)])
    func passwordLengthLimits(_ length: Int, _ accepted: Bool) throws {
        let harness = try Harness()
        harness.hello(1, nick: "alice")
        let out = harness.register(1, password: String(repeating: "p", count: length))
        #expect(out.errorCodes(to: 1) == (accepted ? [] : ["weak-password"]))
        #expect((harness.state.account(of: 1) != nil) == accepted)
    }

    /// A nick that is an account already, and a connection already logged in, get account-exists.
    @Test func registerTwiceIsAccountExists() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice")
        #expect(harness.register(1).errorCodes(to: 1) == ["account-exists"])
        harness.hello(2, nick: "bob")
        harness.send(.nick("carol"), from: 2)
        harness.registered(3, nick: "carol2")
        #expect(harness.send(.nick("carol2"), from: 2).errorCodes(to: 2) == ["nick-in-use"])
    }

    /// The certificate of the registering connection is bound: the next connection with it is logged in at hello.
    @Test func registeredCertificateLogsInAtHello() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", certificate: Harness.fingerprint(7))
        harness.disconnect(1)
        let hello = harness.hello(2, nick: "alice", certificate: Harness.fingerprint(7))
        let welcome = try #require(hello.chat(to: 2).first)
        #expect(welcome.type == "welcome")
        #expect(welcome.sender == "alice")
        #expect(welcome.account == "alice")
        #expect(welcome.features == ["accounts", "moderation", "files"])
        #expect(harness.passwordTasks(in: hello).isEmpty)
    }

    /// A guest asking for a registered nick is a guest named nick_2, and welcome says so without account.
    @Test func guestAskingForRegisteredNickGetsSuffix() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice")
        harness.disconnect(1)
        let welcome = try #require(harness.hello(2, nick: "alice").chat(to: 2).first)
        #expect(welcome.sender == "alice_2")
        #expect(welcome.account == nil)
        // Also with another certificate than the bound one.
        let other = try #require(harness.hello(3, nick: "Alice", certificate: Harness.fingerprint(9)).chat(to: 3).first)
        #expect(other.sender == "Alice_3")
    }

    /// A suffix that is itself someone's account is skipped.
    @Test func suffixSkipsRegisteredNicks() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice")
        harness.registered(2, nick: "alice_2")
        harness.disconnect(1)
        harness.disconnect(2)
        #expect(harness.hello(3, nick: "alice").chat(to: 3).first?.sender == "alice_3")
    }

    // MARK: Logging in at hello with a password

    /// The hello waits for the check: nothing is answered until the verdict, then welcome with account.
    @Test func helloWithRightPasswordWaitsForTheVerdict() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "secret-one")
        harness.disconnect(1)
        harness.connect(2, certificate: nil)
        let asked = harness.send(.join(nick: "alice", peer: Harness.peer(2), room: "lobby", password: "secret-one"), from: 2)
        #expect(asked.chat(to: 2).isEmpty)
        let task = try #require(harness.passwordTasks(in: asked).first)
        guard case .verify(let stored) = task.work else { Issue.record("expected a verify task"); return }
        #expect(stored == "H:secret-one")
        // Messages sent meanwhile wait and follow the hello.
        #expect(harness.say("early", from: 2).chat(to: 2).isEmpty)
        let done = harness.finish(task)
        #expect(done.chat(to: 2).filter { $0.replay != true }.map(\.type) == ["welcome", "joined", "ack"])
        #expect(done.chat(to: 2).first?.account == "alice")
    }

    /// A wrong password is bad-login and not the hello: the connection stays open for another join.
    @Test func helloWithWrongPasswordIsBadLogin() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "secret-one")
        harness.disconnect(1)
        let out = harness.hello(2, nick: "alice", password: "wrong-password")
        #expect(out.errorCodes(to: 2) == ["bad-login"])
        #expect(out.closes.isEmpty)
        #expect(harness.state.nick(of: 2) == nil)
        let again = harness.finishPasswordWork(harness.send(.join(nick: "alice", peer: Harness.peer(2), room: "lobby",
                                                                   password: "secret-one"), from: 2))
        #expect(again.chat(to: 2).first?.account == "alice")
    }

    /// A hello whose later messages arrived while its wrong password was checked: they follow the refusal, as before any hello (PROTOCOL_ERROR).
    @Test func messagesAfterRefusedHelloAreProtocolErrors() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "secret-one")
        harness.connect(2, certificate: nil)
        let asked = harness.send(.join(nick: "alice", peer: Harness.peer(2), room: "lobby", password: "nope-nope"), from: 2)
        harness.say("too early", from: 2)
        let done = harness.finish(try #require(harness.passwordTasks(in: asked).first))
        #expect(done.errorCodes(to: 2) == ["bad-login"])
        #expect(done.closes.map(\.code) == [.protocolError])
    }

    /// The password of a nick that is no account is ignored: a plain guest hello, nothing hashed.
    @Test func passwordForUnregisteredNickIsIgnored() throws {
        let harness = try Harness()
        let out = harness.hello(1, nick: "newbie", password: "whatever1")
        #expect(harness.passwordTasks(in: out).isEmpty)
        #expect(out.chat(to: 1).first?.sender == "newbie")
        #expect(out.chat(to: 1).first?.account == nil)
    }

    // MARK: login after the hello

    /// login takes the account's nick: a nick event in each room, as a rename, carrying the account; then `account logged-in`.
    @Test func loginRenamesInEveryRoom() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "secret-one")
        harness.disconnect(1)
        harness.hello(2, nick: "alice")  // a guest: alice_2
        harness.hello(3, nick: "bob")
        harness.send(.join(room: "dev"), from: 2)
        let out = harness.finishPasswordWork(harness.send(.login(account: "alice", password: "secret-one"), from: 2))
        let nicks = out.chat(to: 2).filter { $0.type == "nick" }
        #expect(Set(nicks.compactMap(\.room)) == ["lobby", "dev"])
        #expect(nicks.allSatisfy { $0.sender == "alice_2" && $0.text == "alice" && $0.account == "alice" })
        #expect(out.chat(to: 3).filter { $0.type == "nick" }.count == 1)
        #expect(out.chat(to: 2).last?.type == "account")
        #expect(out.chat(to: 2).last?.text == "logged-in")
        #expect(harness.state.nick(of: 2) == "alice")
    }

    /// login with a wrong password or an unknown account is bad-login; logged in already is account-exists.
    @Test func loginFailures() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "secret-one")
        harness.hello(2, nick: "bob")
        #expect(harness.finishPasswordWork(harness.send(.login(account: "alice", password: "wrong-one"), from: 2))
            .errorCodes(to: 2) == ["bad-login"])
        #expect(harness.finishPasswordWork(harness.send(.login(account: "nobody", password: "secret-one"), from: 2))
            .errorCodes(to: 2) == ["bad-login"])
        #expect(harness.send(.login(account: "alice", password: "secret-one"), from: 1).errorCodes(to: 1) == ["account-exists"])
    }

    /// login without a password works when the connection's certificate is bound to the account, and only then.
    @Test func loginByCertificate() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", certificate: Harness.fingerprint(3))
        harness.hello(2, nick: "guest", certificate: Harness.fingerprint(3))
        let out = harness.send(.login(account: "alice", password: nil), from: 2)
        #expect(out.accountNotices(to: 2).first?.text == "logged-in")
        #expect(harness.state.nick(of: 2) == "alice_2")
        harness.hello(3, nick: "other", certificate: Harness.fingerprint(4))
        #expect(harness.send(.login(account: "alice", password: nil), from: 3).errorCodes(to: 3) == ["bad-login"])
    }

    // MARK: Several connections, reserved nicks, relayed account

    /// A second connection of the account gets alice_2; both carry the same account; a peer takeover that proves the account (its
    /// certificate) keeps the session's nick and login.
    @Test func severalConnectionsPerAccount() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", certificate: Harness.fingerprint(1))
        let second = try #require(harness.hello(2, nick: "alice", certificate: Harness.fingerprint(1)).chat(to: 2).first)
        #expect(second.sender == "alice_2")
        #expect(second.account == "alice")
        // The same device (peer) reconnecting with its certificate keeps its session's nick and login.
        let takeover = harness.hello(3, nick: "whatever", certificate: Harness.fingerprint(1), peer: Harness.peer(2))
        #expect(takeover.closes.map(\.code) == [.replaced])
        #expect(takeover.chat(to: 3).first?.sender == "alice_2")
        #expect(takeover.chat(to: 3).first?.account == "alice")
    }

    /// A guest cannot take a registered nick by `nick`, even when its owner is offline; the owner's connections can.
    @Test func registeredNicksAreReserved() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", certificate: Harness.fingerprint(1))
        harness.send(.nick("alice-away"), from: 1)
        harness.hello(2, nick: "mallory")
        #expect(harness.send(.nick("ALICE"), from: 2).errorCodes(to: 2) == ["nick-registered"])
        harness.disconnect(1)
        #expect(harness.send(.nick("alice"), from: 2).errorCodes(to: 2) == ["nick-registered"])
        harness.hello(3, nick: "alice", certificate: Harness.fingerprint(1))
        harness.send(.nick("ally"), from: 3)
        #expect(harness.send(.nick("alice"), from: 3).errorCodes(to: 3).isEmpty)
        #expect(harness.state.nick(of: 3) == "alice")
    }

    /// msg, dm, joined, nick and status from a logged-in user carry `account` (also in replay); a guest's carry none.
    @Test func relayedMessagesCarryTheAccount() throws {
        let harness = try Harness()
        harness.hello(2, nick: "bob")
        let registered = harness.registered(1, nick: "alice")
        #expect(registered.chat(to: 2).first { $0.type == "joined" }?.account == nil)
        #expect(harness.say("hello", from: 1).chat(to: 2).first?.account == "alice")
        #expect(harness.send(.dm(to: "bob", text: "psst", id: "d1"), from: 1).chat(to: 2).first?.account == "alice")
        #expect(harness.send(.status("away"), from: 1, on: .presence).presence(to: 2).first?.account == "alice")
        #expect(harness.send(.nick("ally"), from: 1).chat(to: 2).first?.account == "alice")
        harness.send(.part(room: "lobby"), from: 1)
        #expect(harness.send(.join(room: "lobby"), from: 1).chat(to: 2).first?.account == "alice")
        #expect(harness.say("guest words", from: 2).chat(to: 1).first?.account == nil)
        let replay = harness.hello(3, nick: "carol").chat(to: 3).filter { $0.replay == true && $0.type == "msg" }
        #expect(replay.first { $0.text == "hello" }?.account == "alice")
        #expect(replay.first { $0.text == "guest words" }?.account == nil)
    }

    /// The roster lists who is logged in (`identified`); a room of guests has none (and the empty
    /// topic, modes and operators every roster carries).
    @Test func rosterListsIdentifiedMembers() throws {
        let harness = try Harness()
        let guest = harness.hello(1, nick: "bob")
        var plain = ChatMessage.roster(room: "lobby", members: ["bob"])
        (plain.topic, plain.modes, plain.ops) = ("", [], [])
        #expect(guest.presence(to: 1).first { $0.type == "roster" } == plain)
        harness.registered(2, nick: "alice", certificate: Harness.fingerprint(2))
        harness.disconnect(2)
        let roster = harness.hello(3, nick: "alice", certificate: Harness.fingerprint(2)).presence(to: 3).first { $0.type == "roster" }
        #expect(roster?.members == ["alice", "bob"])
        #expect(roster?.identified == ["alice"])
    }

    // MARK: password and certificate

    /// password changes the hash: the old password fails, the new one logs in; a guest gets not-logged-in.
    @Test func changePassword() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "old-password")
        let out = harness.finishPasswordWork(harness.send(.changePassword("new-password", old: "old-password"), from: 1))
        #expect(out.accountNotices(to: 1).map(\.text) == ["password-changed"])
        #expect(harness.send(.changePassword("short"), from: 1).errorCodes(to: 1) == ["weak-password"])
        harness.hello(2, nick: "bob")
        #expect(harness.send(.changePassword("new-password"), from: 2).errorCodes(to: 2) == ["not-logged-in"])
        harness.disconnect(1)
        #expect(harness.hello(3, nick: "alice", password: "old-password").errorCodes(to: 3) == ["bad-login"])
        #expect(harness.hello(4, nick: "alice", password: "new-password").chat(to: 4).first?.account == "alice")
    }

    /// certificate add binds the connection's certificate, remove unbinds it; guests get not-logged-in, no certificate bad-field.
    @Test func certificateAddAndRemove() throws {
        let harness = try Harness()
        harness.registered(1, nick: "alice", password: "password1")
        harness.disconnect(1)
        harness.hello(2, nick: "alice", password: "password1", certificate: Harness.fingerprint(5))
        #expect(harness.send(.certificate(add: true), from: 2).accountNotices(to: 2).first?.text == "certificate-added")
        harness.disconnect(2)
        #expect(harness.hello(3, nick: "alice", certificate: Harness.fingerprint(5)).chat(to: 3).first?.account == "alice")
        #expect(harness.send(.certificate(add: false), from: 3).accountNotices(to: 3).first?.text == "certificate-removed")
        harness.disconnect(3)
        #expect(harness.hello(4, nick: "alice", certificate: Harness.fingerprint(5)).chat(to: 4).first?.account == nil)
        harness.hello(5, nick: "bob", certificate: Harness.fingerprint(6))
        #expect(harness.send(.certificate(add: true), from: 5).errorCodes(to: 5) == ["not-logged-in"])
        harness.registered(6, nick: "carol")
        #expect(harness.send(.certificate(add: true), from: 6).errorCodes(to: 6) == ["bad-field"])
        #expect(harness.send(ChatMessage(.certificate, text: "swap"), from: 6).errorCodes(to: 6) == ["bad-field"])
    }

    /// An account keeps a credential: its only certificate cannot be removed without a password.
    @Test func onlyCredentialStays() throws {
        let harness = try Harness()
        harness.hello(1, nick: "alice", certificate: Harness.fingerprint(1))
        harness.register(1, password: nil)
        #expect(harness.send(.certificate(add: false), from: 1).errorCodes(to: 1) == ["weak-password"])
        harness.finishPasswordWork(harness.send(.changePassword("password1"), from: 1))
        #expect(harness.send(.certificate(add: false), from: 1).accountNotices(to: 1).first?.text == "certificate-removed")
    }

    /// Certificates per account are bounded: beyond the limit, quota-exceeded; binding one bound already is fine.
    @Test func certificatesPerAccountAreBounded() throws {
        var configuration = ChatServerConfiguration()
        configuration.maxCertificatesPerAccount = 2
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "alice", password: "password1", certificate: Harness.fingerprint(1))
        #expect(harness.send(.certificate(add: true), from: 1).accountNotices(to: 1).count == 1)
        harness.hello(2, nick: "alice", password: "password1", certificate: Harness.fingerprint(2))
        #expect(harness.send(.certificate(add: true), from: 2).accountNotices(to: 2).count == 1)
        harness.hello(3, nick: "alice", password: "password1", certificate: Harness.fingerprint(3))
        #expect(harness.send(.certificate(add: true), from: 3).errorCodes(to: 3) == ["quota-exceeded"])
    }

    // MARK: accounts-only

    /// With --accounts-only a guest's join is account-required and the connection stays open for a join with credentials.
    @Test func accountsOnlyRefusesGuests() throws {
        var configuration = ChatServerConfiguration()
        configuration.accountsOnly = true
        let harness = try Harness(configuration: configuration)
        // An account made while the server allowed guests.
        let store = InMemoryAccountStore()
        try store.create(StoredAccount(name: "alice", passwordHash: "H:password1", created: 0), certificate: Harness.fingerprint(1))
        let strict = try Harness(configuration: configuration, accounts: store)
        let guest = strict.hello(1, nick: "bob")
        #expect(guest.errorCodes(to: 1) == ["account-required"])
        #expect(guest.closes.isEmpty)
        let withPassword = strict.finishPasswordWork(strict.send(.join(nick: "alice", peer: Harness.peer(1), room: "lobby",
                                                                         password: "password1"), from: 1))
        #expect(withPassword.chat(to: 1).first?.account == "alice")
        #expect(strict.hello(2, nick: "alice", certificate: Harness.fingerprint(1)).chat(to: 2).first?.account == "alice")
        #expect(harness.hello(3, nick: "anyone").errorCodes(to: 3) == ["account-required"])
    }
}
