import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing
import TestSupport

/// Issue 13 end to end: the real chat-server with real TLS client certificates (self-signed
/// identities made by the engine), argon2id hashes on its workers, and SQLite across `kill -9`.
@Suite("accounts and moderation, end to end", .serialized)
struct AccountsEndToEndTests {
    /// The first message of `type` a session got, if any.
    static func first(_ world: ChatTestWorld, _ session: ChatSession, _ type: String,
                      where predicate: (ChatMessage) -> Bool = { _ in true }) -> ChatMessage? {
        world.messages(session, type: type).first(where: predicate)
    }

    /// Connects with an identity (and a hello password) and waits for its own `joined` (after the
    /// welcome: on a node of several, once the join is stored) or an error.
    @discardableResult
    static func connect(_ world: ChatTestWorld, _ nick: String, identity: TestIdentity? = nil, password: String? = nil,
                        room: String = "lobby") throws -> ChatSession {
        let session = try world.connect(nick, room: room) { configuration in identity?.apply(to: &configuration) }
        session.helloPassword = password
        world.run { world.joined(session, room: room) || world.has(session, type: "error") || world.closes[session.connection.id] != nil }
        return session
    }

    /// Sends a request and waits for a message of `answer` type (or an error) on the session.
    @discardableResult
    static func request(_ world: ChatTestWorld, _ session: ChatSession, _ message: ChatMessage, answer: String,
                        from sender: String? = nil) -> ChatMessage? {
        let before = world.count(session, type: answer) + world.count(session, type: "error")
        session.send(message)
        world.run { world.count(session, type: answer) + world.count(session, type: "error") > before }
        return (world.messages(session, type: answer) + world.messages(session, type: "error")).last
    }

    /// Register with a password from a connection with a certificate; reconnect with the certificate alone and be logged in.
    @Test func registerThenLogInByCertificate() async throws {
        let identity = try TestIdentity(name: "alice")
        defer { identity.remove() }
        let outcome = try await scenario { world, _ in
            let alice = try Self.connect(world, "alice", identity: identity)
            let answer = Self.request(world, alice, .register(password: "correct horse"), answer: "account")
            alice.quit()
            world.run { world.closes[alice.connection.id] != nil }
            let again = try Self.connect(world, "alice", identity: identity)
            return (answer, Self.first(world, again, "welcome"))
        }
        #expect(outcome.0?.type == "account")
        #expect(outcome.0?.text == "registered")
        #expect(outcome.1?.sender == "alice")
        #expect(outcome.1?.account == "alice")
        #expect(outcome.1?.features == ClusterMode.welcomeFeatures(["accounts", "moderation", "files"]))
    }

    /// A guest asking for a registered nick is nick_2; the owner logs in with the password at hello.
    @Test func guestGetsSuffixOwnerLogsInWithPassword() async throws {
        let outcome = try await scenario { world, _ in
            let alice = try Self.connect(world, "alice")
            Self.request(world, alice, .register(password: "correct horse"), answer: "account")
            alice.quit()
            world.run { world.closes[alice.connection.id] != nil }
            let guest = try Self.connect(world, "alice")
            let owner = try Self.connect(world, "alice", password: "correct horse")
            return (Self.first(world, guest, "welcome"), Self.first(world, owner, "welcome"))
        }
        #expect(outcome.0?.sender == "alice_2")
        #expect(outcome.0?.account == nil)
        #expect(outcome.1?.sender == "alice")
        #expect(outcome.1?.account == "alice")
    }

    /// Five wrong passwords lock the account: the right one is bad-login too, until the minute is over; the certificate still works.
    @Test func wrongPasswordLimit() async throws {
        let identity = try TestIdentity(name: "alice")
        defer { identity.remove() }
        let codes = try await scenario { world, _ in
            let alice = try Self.connect(world, "alice", identity: identity)
            Self.request(world, alice, .register(password: "correct horse"), answer: "account")
            var codes: [String] = []
            for _ in 0..<5 {
                let attempt = try Self.connect(world, "alice", password: "wrong horse")
                codes.append(Self.first(world, attempt, "error")?.code ?? "none")
                attempt.quit()
            }
            let right = try Self.connect(world, "alice", password: "correct horse")
            codes.append(Self.first(world, right, "error")?.code ?? "none")
            let byCertificate = try Self.connect(world, "alice", identity: identity)
            codes.append(Self.first(world, byCertificate, "welcome")?.account ?? "none")
            return codes
        }
        #expect(codes == ["bad-login", "bad-login", "bad-login", "bad-login", "bad-login", "bad-login", "alice"])
    }

    /// An invite-only room refuses the uninvited (not-invited) and admits the invited; kick and mode reach every member.
    @Test func inviteOnlyRoom() async throws {
        let outcome = try await scenario { world, _ in
            let owner = try Self.connect(world, "owner", room: "club")
            Self.request(world, owner, .register(password: "owner-pass"), answer: "account")
            Self.request(world, owner, .claim(room: "club"), answer: "op")
            Self.request(world, owner, .mode(room: "club", "+invite"), answer: "mode")
            let friend = try Self.connect(world, "friend")
            let stranger = try Self.connect(world, "stranger")
            let refused = Self.request(world, stranger, .join(room: "club"), answer: "joined")
            Self.request(world, owner, .invite(room: "club", nick: "friend"), answer: "invite")
            world.run { world.has(friend, type: "invite") }
            friend.send(.join(room: "club"))
            world.run { world.joined(friend, room: "club") }
            let roster = world.messages(friend, type: "roster").last { $0.room == "club" }
            Self.request(world, owner, .kick(room: "club", nick: "friend", reason: "test"), answer: "kicked")
            world.run { world.has(friend, type: "kicked") }
            return (refused, world.joined(friend, room: "club"), roster, Self.first(world, friend, "kicked"))
        }
        #expect(outcome.0?.code == "not-invited")
        #expect(outcome.0?.room == "club")
        #expect(outcome.1)
        #expect(outcome.2?.modes == ["invite"])
        #expect(outcome.2?.ops == ["owner"])
        #expect(outcome.2?.identified == ["owner"])
        #expect(outcome.3?.to == "friend")
        #expect(outcome.3?.text == "test")
    }

    /// A server ban closes the banned connection with BANNED, and its next hello gets error banned and BANNED.
    @Test func serverBanClosesWithBanned() async throws {
        let outcome = try await scenario(server: ["--operator", "admin"]) { world, server in
            // An operator's name is made on the console.
            try AccountAttackTests.console(server, "register admin admin-pass", answer: AccountAttackTests.operatorRegistered("admin"))
            let admin = try Self.connect(world, "admin", password: "admin-pass")
            let troll = try Self.connect(world, "troll")
            Self.request(world, troll, .register(password: "troll-pass"), answer: "account")
            Self.request(world, admin, .ban(room: nil, target: "troll", reason: "spam"), answer: "banned")
            world.run { world.closes[troll.connection.id] != nil }
            let again = try Self.connect(world, "troll", password: "troll-pass")
            world.run { world.closes[again.connection.id] != nil }
            return (world.closeCode(troll), Self.first(world, again, "error")?.code, world.closeCode(again))
        }
        #expect(outcome.0 == CloseCode.banned.rawValue)
        #expect(outcome.1 == "banned")
        #expect(outcome.2 == CloseCode.banned.rawValue)
    }

    /// --accounts-only: a guest gets account-required and the connection stays open; a logged-in join is welcomed.
    @Test(.standaloneOnly("restarts the server on the same --db"))
    func accountsOnly() async throws {
        let identity = try TestIdentity(name: "alice")
        defer { identity.remove() }
        let database = temporaryDatabasePath()
        defer { removeDatabase(database) }
        // The account is made on an open server, then the same database serves accounts only.
        try await scenario(server: ["--db", database]) { world, _ in
            let alice = try Self.connect(world, "alice", identity: identity)
            Self.request(world, alice, .register(password: nil), answer: "account")
        }
        let outcome = try await scenario(server: ["--db", database, "--accounts-only"]) { world, _ in
            let guest = try Self.connect(world, "guest")
            let member = try Self.connect(world, "alice", identity: identity)
            return (Self.first(world, guest, "error")?.code, world.closes[guest.connection.id] == nil,
                    Self.first(world, member, "welcome")?.account)
        }
        #expect(outcome.0 == "account-required")
        #expect(outcome.1)
        #expect(outcome.2 == "alice")
    }

    /// With --db and kill -9: accounts, certificates, the room's owner, topic, mode, invite and ban, and a server ban all hold after a
    /// restart; of topics changed in a burst, the one last answered before the kill (or a later one) is the room's.
    @Test(.standaloneOnly("kills the server and restarts it on the same --db"))
    func everythingSurvivesKillNine() async throws {
        let identity = try TestIdentity(name: "owner")
        defer { identity.remove() }
        let database = temporaryDatabasePath()
        defer { removeDatabase(database) }
        let answeredTopic = try await onDedicatedThread { () throws -> Int in
            // The operator's certificate may register the operator's name over the wire.
            let server = try ChatServerProcess(["--db", database, "--operator", "owner=sha256:\(identity.fingerprint)",
                                                "--flood-burst", "1000", "--flood-rate", "1000"])
            defer { server.stop() }
            let world = try ChatTestWorld(port: server.port)
            let owner = try Self.connect(world, "owner", identity: identity, room: "club")
            Self.request(world, owner, .register(password: "owner-pass"), answer: "account")
            let friend = try Self.connect(world, "friend")
            Self.request(world, friend, .register(password: "friend-pass"), answer: "account")
            let pest = try Self.connect(world, "pest")
            Self.request(world, pest, .register(password: "pest-passwd"), answer: "account")
            let troll = try Self.connect(world, "troll")
            Self.request(world, troll, .register(password: "troll-pass"), answer: "account")
            Self.request(world, owner, .claim(room: "club"), answer: "op")
            Self.request(world, owner, .mode(room: "club", "+invite"), answer: "mode")
            Self.request(world, owner, .invite(room: "club", nick: "friend"), answer: "invite")
            Self.request(world, owner, .ban(room: "club", target: "pest"), answer: "banned")
            Self.request(world, owner, .ban(room: nil, target: "troll"), answer: "banned")
            world.run { world.closes[troll.connection.id] != nil }
            for index in 1...40 { owner.send(.topic(room: "club", text: "topic \(index)")) }
            world.run { world.messages(owner, type: "topic").count >= 20 }
            server.process.signal(SIGKILL)
            _ = server.process.finish(timeout: 5)
            return world.messages(owner, type: "topic").compactMap { Int($0.text.dropFirst("topic ".count)) }.max() ?? 0
        }
        #expect(answeredTopic >= 20)
        let after = try await scenario(server: ["--db", database, "--operator", "owner"]) { world, _ in
            let owner = try Self.connect(world, "owner", identity: identity, room: "club")
            world.run { world.joined(owner, room: "club") && world.has(owner, type: "roster") }
            let friend = try Self.connect(world, "friend", password: "friend-pass", room: "club")
            world.run { world.joined(friend, room: "club") }
            let pest = try Self.connect(world, "pest", password: "pest-passwd", room: "club")
            let stranger = try Self.connect(world, "stranger", room: "club")
            let troll = try Self.connect(world, "troll", password: "troll-pass")
            world.run { world.closes[troll.connection.id] != nil }
            return (Self.first(world, owner, "welcome")?.account, world.messages(owner, type: "roster").last { $0.room == "club" },
                    world.joined(friend, room: "club"), Self.first(world, pest, "error")?.code,
                    Self.first(world, stranger, "error")?.code, world.closeCode(troll))
        }
        #expect(after.0 == "owner")
        let topicIndex = Int(after.1?.topic?.dropFirst("topic ".count) ?? "") ?? 0
        #expect(topicIndex >= answeredTopic)
        #expect(after.1?.modes == ["invite"])
        #expect(after.1?.ops == ["owner"])
        #expect(after.2)
        #expect(after.3 == "banned")
        #expect(after.4 == "not-invited")
        #expect(after.5 == CloseCode.banned.rawValue)
    }

    /// A room ban given on the operator console survives a restart; the console's op makes an operator.
    @Test(.standaloneOnly("restarts the server on the same --db"))
    func consoleBanAndOpSurviveRestart() async throws {
        let database = temporaryDatabasePath()
        defer { removeDatabase(database) }
        try await onDedicatedThread { () throws in
            let server = try ChatServerProcess(["--db", database])
            defer { server.stop() }
            let world = try ChatTestWorld(port: server.port)
            let alice = try Self.connect(world, "alice", room: "dev")
            Self.request(world, alice, .register(password: "alice-pass"), answer: "account")
            let bob = try Self.connect(world, "bob", room: "dev")
            Self.request(world, bob, .register(password: "bob-passwd"), answer: "account")
            server.process.write("op #dev alice\n")
            #expect(server.process.waitForLine(timeout: 10) { $0.contains("alice is now an operator of dev") } != nil)
            server.process.write("ban #dev bob flooding\n")
            #expect(server.process.waitForLine(timeout: 10) { $0.contains("banned bob from dev") } != nil)
            world.run { world.has(bob, type: "banned") }
            #expect(Self.first(world, bob, "banned")?.text == "flooding")
        }
        let outcome = try await scenario(server: ["--db", database]) { world, _ in
            let bob = try Self.connect(world, "bob", password: "bob-passwd", room: "dev")
            let alice = try Self.connect(world, "alice", password: "alice-pass", room: "dev")
            world.run { world.joined(alice, room: "dev") && world.messages(alice, type: "roster").contains { $0.room == "dev" } }
            return (Self.first(world, bob, "error")?.code, world.messages(alice, type: "roster").last { $0.room == "dev" }?.ops)
        }
        #expect(outcome.0 == "banned")
        #expect(outcome.1 == ["alice"])
    }
}

extension AccountsEndToEndTests {
    /// TLS session resumption never carries one identity's login to another connection of the same pool: a connection
    /// without a certificate, after one with a bound certificate, is a guest; the identity's own next connection resumes and
    /// is still logged in.
    @Test(.standaloneOnly("resumes a TLS session: tickets are kept per server, and the next connection goes to another node"))
    func resumptionKeepsIdentitiesApart() async throws {
        let identity = try TestIdentity(name: "alice")
        defer { identity.remove() }
        let outcome = try await scenario { world, server in
            let alice = try Self.connect(world, "alice", identity: identity)
            Self.request(world, alice, .register(password: nil), answer: "account")
            alice.quit()
            world.run { world.closes[alice.connection.id] != nil }
            let stranger = try Self.connect(world, "alice")
            let again = try Self.connect(world, "alice", identity: identity)
            let resumed = again.connection.resumedSession
            return (Self.first(world, stranger, "welcome"), Self.first(world, again, "welcome"), resumed)
        }
        #expect(outcome.0?.sender == "alice_2")
        #expect(outcome.0?.account == nil)
        #expect(outcome.1?.account == "alice")
        #expect(outcome.2)
    }
}
