import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing
import TestSupport

/// Issue 23's findings on accounts, logins and reserved names, replayed against the real
/// chat-server as the attacker ran them (docs/RELIABILITY.md, "Attacker findings of December 2026").
@Suite("accounts under attack (issue 23), end to end", .serialized)
struct AccountAttackTests {
    static let wrongText = "wrong account name or password"
    static let lockedText = "too many wrong passwords lately; wait a minute"

    /// What a burst of guesses got.
    struct Guesses: Sendable {
        /// Answered as checked and wrong (hashed), and refused unchecked (the limit).
        var checked = 0
        var refused = 0
        /// What the right password got afterwards: `logged-in`, or the error's code.
        var right = ""
    }

    /// Sends one hello with a wrong password for each name of `accounts` on its own connection,
    /// all written in one turn of the loop once every handshake is done, so that every guess is
    /// in flight before the first verdict; waits for every answer, then tries `right` (an
    /// account and its password) on a fresh connection.
    static func guessAllAtOnce(_ world: ChatTestWorld, accounts: [String], right: (String, String)) throws -> Guesses {
        let clients = try accounts.map { _ in try world.connectRaw() }
        world.run(seconds: 30) { clients.allSatisfy(\.isConnected) }
        for (client, name) in zip(clients, accounts) {
            let stream = try client.openStream()
            client.write(ChatMessage.join(nick: name, peer: ChatSession.randomPeerID(), room: "lobby", password: "wrong guess")
                .encodedLine(), to: stream)
        }
        world.run(seconds: 60) { clients.allSatisfy { $0.has(type: "error") || $0.has(type: "welcome") } }
        var guesses = Guesses()
        for client in clients {
            let text = client.messages(on: 0, type: "error").first?.text
            if text == wrongText { guesses.checked += 1 }
            if text == lockedText { guesses.refused += 1 }
        }
        let owner = try AccountsEndToEndTests.connect(world, right.0, password: right.1)
        guesses.right = world.messages(owner, type: "error").first?.code
            ?? (world.messages(owner, type: "welcome").first?.account == right.0 ? "logged-in" : "none")
        return guesses
    }

    /// Registers each name (with password `name-password`) and disconnects it.
    static func register(_ world: ChatTestWorld, _ names: [String]) throws {
        for name in names {
            let session = try AccountsEndToEndTests.connect(world, name)
            let answer = AccountsEndToEndTests.request(world, session, .register(password: "\(name)-password"), answer: "account")
            #expect(answer?.text == "registered")
            session.quit()
            world.run { world.closes[session.connection.id] != nil }
        }
    }

    /// Finding 1: 40 guesses for one account sent at once are counted while they are hashed: 5
    /// are checked, the rest refused unchecked, and the right password after them is refused too
    /// (before: 40 checked, and the right password logged in).
    @Test func concurrentGuessesForOneAccount() async throws {
        let guesses = try await scenario { world, _ in
            try Self.register(world, ["alice"])
            return try Self.guessAllAtOnce(world, accounts: Array(repeating: "alice", count: 40), right: ("alice", "alice-password"))
        }
        Self.expectLimitHeld(guesses, total: 40)
    }

    /// Finding 1, per address: 16 guesses from one address that is not exempt, over four accounts
    /// (four each, under each account's limit), sent at once: 5 are checked, and the right
    /// password of a fifth account from that address is refused (before: all 16 checked, and
    /// the right password logged in).
    @Test func concurrentGuessesFromOneAddress() async throws {
        let guesses = try await scenario(server: ["--exempt", "none", "--max-per-address", "64"]) { world, _ in
            try Self.register(world, ["alice", "bob", "carol", "dave", "erin"])
            let names = (0..<16).map { ["alice", "bob", "carol", "dave"][$0 % 4] }
            return try Self.guessAllAtOnce(world, accounts: names, right: ("erin", "erin-password"))
        }
        Self.expectLimitHeld(guesses, total: 16)
    }

    /// Finding 1 over two nodes on one Redis: guesses spread over both nodes, all at once, are
    /// counted in the store while hashed on either node (before: 59 wrong and a login in 4.6 s).
    @Test func concurrentGuessesOverTwoNodes() async throws {
        let guesses = try await Self.onNodes(2) { world, _ in
            try Self.register(world, ["alice"])
            return try Self.guessAllAtOnce(world, accounts: Array(repeating: "alice", count: 40), right: ("alice", "alice-password"))
        }
        Self.expectLimitHeld(guesses, total: 40)
    }

    /// Finding 1 over two nodes, per address (`--exempt none`).
    @Test func concurrentGuessesFromOneAddressOverTwoNodes() async throws {
        let guesses = try await Self.onNodes(2, ["--exempt", "none", "--max-per-address", "64"]) { world, _ in
            try Self.register(world, ["alice", "bob", "carol", "dave", "erin"])
            let names = (0..<16).map { ["alice", "bob", "carol", "dave"][$0 % 4] }
            return try Self.guessAllAtOnce(world, accounts: names, right: ("erin", "erin-password"))
        }
        Self.expectLimitHeld(guesses, total: 16)
    }

    /// Runs `body` against `nodes` real nodes on a real redis-server of their own (the world's
    /// connections go to each node in turn), whatever the environment asks for.
    static func onNodes<Result: Sendable>(_ nodes: Int, _ arguments: [String] = [],
                                          _ body: @escaping @Sendable (ChatTestWorld, ChatServerProcess) throws -> Result)
        async throws -> Result {
        let server = try ChatServerProcess(arguments, nodes: nodes)
        defer { server.stop() }
        return try await onDedicatedThread { try body(ChatTestWorld(port: server.port), server) }
    }

    static func expectLimitHeld(_ guesses: Guesses, total: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(guesses.checked <= 5, "\(guesses)", sourceLocation: sourceLocation)
        #expect(guesses.checked + guesses.refused == total, "\(guesses)", sourceLocation: sourceLocation)
        #expect(guesses.right == "bad-login", "\(guesses)", sourceLocation: sourceLocation)
    }
}
