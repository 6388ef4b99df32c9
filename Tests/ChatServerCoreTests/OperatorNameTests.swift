import ChatProtocol
import ChatServerCore
import Testing

/// A server operator's name is reserved from the start and made only on the console (or by the
/// connection with the certificate configured for it); `unregister` takes an account from whoever
/// holds it (docs/PROTOCOL.md sections 7-8, items 16 and 32; issue 23, finding 4).
@Suite struct OperatorNameTests {
    static func harness(operators: Set<String> = ["admin"], certificates: [String: String] = [:]) throws -> Harness {
        var configuration = ChatServerConfiguration()
        configuration.operators = operators
        configuration.operatorCertificates = certificates
        return try Harness(configuration: configuration)
    }

    static func console(_ actions: [ServerAction]) -> [String] {
        actions.compactMap { if case .consoleLine(let line) = $0 { line } else { nil } }
    }

    /// No guest gets the name (in any case) before its account exists, nor takes it by `nick`.
    @Test func operatorNameIsReservedFromTheStart() throws {
        let harness = try Self.harness()
        #expect(harness.hello(1, nick: "admin").chat(to: 1).first?.sender == "admin_2")
        harness.disconnect(1)
        #expect(harness.hello(2, nick: "Admin").chat(to: 2).first?.sender == "Admin_2")
        #expect(harness.send(.nick("ADMIN"), from: 2).errorCodes(to: 2) == ["nick-registered"])
    }

    /// A guest that held the name before a reload made it an operator's cannot register it.
    @Test func nameHeldBeforeAReloadCannotBeRegistered() throws {
        let harness = try Self.harness(operators: [])
        harness.hello(1, nick: "admin")
        var configuration = harness.state.configuration
        configuration.operators = ["admin"]
        try harness.state.reconfigure(configuration, now: harness.now)
        #expect(harness.register(1).errorCodes(to: 1) == ["account-exists"])
        #expect(harness.state.account(of: 1) == nil)
    }

    /// The console's `register` makes the account; its owner logs in with the password and acts as a server operator.
    @Test func consoleRegisterMakesTheOperator() throws {
        let harness = try Self.harness()
        #expect(Self.console(harness.operatorRegister("admin", passwordHash: "H:admin-pass", certificate: nil).actions)
            == ["registered admin"])
        #expect(Self.console(harness.operatorRegister("admin", passwordHash: "H:other-pass", certificate: nil).actions)
            == ["account admin exists (unregister it first)"])
        let admin = harness.hello(1, nick: "admin", password: "admin-pass")
        #expect(admin.chat(to: 1).first?.account == "admin")
        harness.hello(2, nick: "pest")
        #expect(harness.send(.kick(room: nil, nick: "pest"), from: 1).closes.map(\.client) == [2])
    }

    /// `--operator admin=sha256:F`: the connection presenting F takes the nick and registers the
    /// account over the wire; no other may; F logs in to it afterwards.
    @Test func configuredCertificateMakesTheAccount() throws {
        let owner = Harness.fingerprint(7)
        let harness = try Self.harness(certificates: ["admin": owner])
        #expect(harness.hello(1, nick: "admin", certificate: Harness.fingerprint(8)).chat(to: 1).first?.sender == "admin_2")
        #expect(harness.hello(2, nick: "admin", certificate: owner).chat(to: 2).first?.sender == "admin")
        #expect(harness.register(2, password: nil).accountNotices(to: 2).first?.text == "registered")
        harness.disconnect(2)
        #expect(harness.hello(3, nick: "admin", certificate: owner).chat(to: 3).first?.account == "admin")
    }

    /// A squatter's account (registered before the name was an operator's) is taken away on the
    /// console: its connection is closed (KICKED), its password no longer logs in, nobody may
    /// register the name, and the console gives it a new password for its owner.
    @Test func unregisterTakesTheSquattersAccount() throws {
        let harness = try Self.harness(operators: [])
        harness.registered(1, nick: "admin", password: "squat-pass")
        var configuration = harness.state.configuration
        configuration.operators = ["admin"]
        try harness.state.reconfigure(configuration, now: harness.now)
        let removed = harness.operatorUnregister("admin")
        #expect(removed.closes.map { [$0.client: $0.code] } == [[1: .kicked]])
        #expect(Self.console(removed.actions) == ["unregistered admin: it has no password or certificate now"])
        #expect(harness.hello(2, nick: "admin", password: "squat-pass").errorCodes(to: 2) == ["bad-login"])
        #expect(Self.console(harness.operatorRegister("admin", passwordHash: "H:owner-pass", certificate: nil).actions)
            == ["admin has a new password"])
        #expect(harness.hello(3, nick: "admin", password: "owner-pass").chat(to: 3).first?.account == "admin")
        #expect(Self.console(harness.operatorUnregister("nobody").actions) == ["no account nobody"])
    }

    /// An account without a credential (unregistered) stays reserved: a guest cannot register it.
    @Test func unregisteredNameStaysReserved() throws {
        let harness = try Self.harness(operators: [])
        harness.registered(1, nick: "bob", password: "bob-passwd")
        harness.operatorUnregister("bob")
        #expect(harness.hello(2, nick: "bob").chat(to: 2).first?.sender == "bob_2")
        #expect(harness.send(.nick("bob"), from: 2).errorCodes(to: 2) == ["nick-registered"])
    }

    /// On a node of several, `unregister` on one node closes the account's connections on the other.
    @Test func unregisterClosesTheAccountOnEveryNode() throws {
        let world = SharedLogWorld()
        try world.node("a")
        try world.node("b")
        world.login(1, nick: "alice", on: "a")
        world.send(.register(password: "correct horse"), from: 1, on: "a")
        world.settle()
        world.connect(2, on: "b")
        world.send(.join(nick: "alice", peer: SharedLogWorld.peer(2), room: "lobby", password: "correct horse"), from: 2, on: "b")
        world.settle()
        #expect(world.nodes["b"]!.chat(to: 2).first?.account == "alice")
        // The console's node reads the account first (the next try finds it).
        world.absorb(world.nodes["a"]!.state.readAccountForConsole("alice"), on: "a")
        world.settle()
        world.absorb(world.nodes["a"]!.state.operatorUnregister("alice", now: world.now), on: "a")
        world.settle()
        #expect(world.nodes["a"]!.outbox.closes.map(\.client) == [1])
        #expect(world.nodes["b"]!.outbox.closes.map(\.client) == [2])
        #expect(Self.console(world.nodes["a"]!.actions).last == "unregistered alice: it has no password or certificate now")
    }
}

/// `lobby`, every client's first room, is claimed by a server operator only, unless
/// `--lobby-claimable` (issue 23, finding 6).
@Suite struct LobbyClaimTests {
    @Test func lobbyIsClaimedByServerOperatorsOnly() throws {
        var configuration = ChatServerConfiguration()
        configuration.operators = ["admin"]
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "alice")
        harness.registered(2, nick: "admin")
        let refused = harness.send(.claim(room: "lobby"), from: 1)
        #expect(refused.errorCodes(to: 1) == ["not-operator"])
        #expect(refused.chat(to: 1).first?.room == "lobby")
        harness.send(.join(room: "dev"), from: 1)
        #expect(harness.send(.claim(room: "dev"), from: 1).chat(to: 1).first?.text == "owner", "any other room as before")
        #expect(harness.send(.claim(room: "lobby"), from: 2).chat(to: 2).first?.text == "owner")
    }

    @Test func lobbyClaimableLetsMembersClaimIt() throws {
        var configuration = ChatServerConfiguration()
        configuration.lobbyClaimable = true
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "alice")
        #expect(harness.send(.claim(room: "lobby"), from: 1).chat(to: 1).first?.text == "owner")
    }
}

/// A guest ban holds for the banned device logged in or not, and at the banned address for
/// accounts registered since the ban; an older account at that address is not shut out
/// (docs/PROTOCOL.md sections 7-8, item 21; issue 23, finding 11).
@Suite struct GuestBanAfterLoginTests {
    /// A room world: `owner` (1) owns `club`; `pest` (2) is a guest in it from 192.0.2.9.
    static func club() throws -> Harness {
        var configuration = ChatServerConfiguration()
        configuration.floodBurst = 1_000
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "owner", room: "club")
        harness.send(.claim(room: "club"), from: 1)
        harness.hello(2, nick: "pest", room: "club", address: "192.0.2.9")
        return harness
    }

    /// Banned from the room as a guest, then registered on the same connection: still banned.
    @Test func roomBanHoldsAfterRegistering() throws {
        let harness = try Self.club()
        harness.send(.ban(room: "club", target: "pest"), from: 1)
        harness.register(2, password: "pest-passwd")
        #expect(harness.send(.join(room: "club"), from: 2).errorCodes(to: 2) == ["banned"])
    }

    /// Server-banned as a guest: the same device logging in to an older account is banned; a new
    /// device at that address logging in to an account registered after the ban is banned; a new
    /// device at that address logging in to an account older than the ban is not.
    @Test func serverBanHoldsForTheDeviceAndNewAccounts() throws {
        var configuration = ChatServerConfiguration()
        configuration.operators = ["admin"]
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "admin")
        harness.registered(3, nick: "oldtimer", password: "old-password")
        harness.disconnect(3)
        harness.advance(1_000)
        harness.hello(2, nick: "pest", address: "192.0.2.9", peer: Harness.peer(77))
        harness.send(.ban(room: nil, target: "pest"), from: 1)
        harness.advance(1_000)
        harness.registered(4, nick: "fresh", password: "fresh-passwd")
        harness.disconnect(4)
        let sameDevice = harness.hello(5, nick: "oldtimer", password: "old-password", address: "198.51.100.1", peer: Harness.peer(77))
        #expect(sameDevice.closes.map(\.code) == [.banned])
        let newAccount = harness.hello(6, nick: "fresh", password: "fresh-passwd", address: "192.0.2.9")
        #expect(newAccount.closes.map(\.code) == [.banned])
        let olderAccount = harness.hello(7, nick: "oldtimer", password: "old-password", address: "192.0.2.9")
        #expect(olderAccount.closes.isEmpty)
        #expect(olderAccount.chat(to: 7).first?.account == "oldtimer")
    }
}

/// A logged-in session is taken over only by a connection that proves its account, and a
/// password changes only with the current one (or a bound certificate): the peer id alone no
/// longer gives an account away (docs/PROTOCOL.md sections 7-8, items 10 and 11; issue 23, finding 12).
@Suite struct ProvenTakeoverTests {
    /// alice (client 1, peer 1) logged in by password.
    static func alice() throws -> Harness {
        let harness = try Harness()
        harness.registered(9, nick: "alice", password: "alice-pass")
        harness.disconnect(9)
        harness.hello(1, nick: "alice", password: "alice-pass")
        return harness
    }

    @Test func peerAloneIsANewDevice() throws {
        let harness = try Self.alice()
        let taker = harness.hello(2, nick: "mallory", peer: Harness.peer(1))
        #expect(taker.closes.isEmpty)
        let welcome = try #require(taker.chat(to: 2).first { $0.type == "welcome" })
        #expect(welcome.account == nil)
        #expect(welcome.sender == "mallory")
        #expect(welcome.peer != Harness.peer(1))
        #expect(harness.state.account(of: 1) == "alice")
        #expect(harness.state.peer(of: 1) == Harness.peer(1))
    }

    @Test func passwordTakesTheSessionOver() throws {
        let harness = try Self.alice()
        let taker = harness.hello(2, nick: "whatever", password: "alice-pass", peer: Harness.peer(1))
        #expect(taker.closes.map(\.code) == [.replaced])
        #expect(taker.chat(to: 2).first?.account == "alice")
        #expect(taker.chat(to: 2).first?.sender == "alice")
        #expect(taker.chat(to: 2).first?.peer == Harness.peer(1))
    }

    @Test func anotherAccountIsANewDevice() throws {
        let harness = try Self.alice()
        harness.registered(8, nick: "bob", password: "bob-passwd")
        harness.disconnect(8)
        let taker = harness.hello(2, nick: "bob", password: "bob-passwd", peer: Harness.peer(1))
        #expect(taker.closes.isEmpty)
        #expect(taker.chat(to: 2).first?.account == "bob")
        #expect(taker.chat(to: 2).first?.peer != Harness.peer(1))
        #expect(harness.state.account(of: 1) == "alice")
    }

    @Test func passwordChangeNeedsTheCurrentOne() throws {
        let harness = try Self.alice()
        #expect(harness.send(.changePassword("stolen-pass"), from: 1).errorCodes(to: 1) == ["bad-login"])
        #expect(harness.finishPasswordWork(harness.send(.changePassword("stolen-pass", old: "guess-pass"), from: 1)).errorCodes(to: 1)
            == ["bad-login"])
        let changed = harness.finishPasswordWork(harness.send(.changePassword("better-pass", old: "alice-pass"), from: 1))
        #expect(changed.accountNotices(to: 1).map(\.text) == ["password-changed"])
        // By a bound certificate, no current password is asked.
        harness.registered(3, nick: "carol", password: "carol-pass", certificate: Harness.fingerprint(3))
        #expect(harness.finishPasswordWork(harness.send(.changePassword("carol-newpass"), from: 3)).accountNotices(to: 3).map(\.text)
            == ["password-changed"])
    }
}
