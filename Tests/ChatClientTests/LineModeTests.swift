import Foundation
import Glibc
import TestSupport
import Testing

/// chat-client's line mode, end to end with the real binaries: a script on stdin, one line per event.
@Suite("chat-client line mode", .serialized)
struct LineModeTests {
    static func client(port: UInt16, nick: String, _ extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(BuildPaths.product("chat-client"),
                         ["--port", "\(port)", "--nick", nick, "--ca", TestCertificates.ca, "--host", "localhost", "--plain"] + extra,
                         environment: ["XDG_STATE_HOME": sharedStateHome])
    }

    /// The state home (session slots, private messages) of the clients started by ``client(port:nick:_:)``:
    /// one temporary folder for the test process, never the developer's own, removed at its exit.
    static let sharedStateHome: String = {
        try? FileManager.default.createDirectory(atPath: stateHomePath(), withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: LineModeTests.stateHomePath()) }
        return stateHomePath()
    }()

    private static func stateHomePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("qchat-state-\(getpid())").path
    }

    /// Lines typed into one client arrive as one line each in the other; a dm arrives as a dm;
    /// end of input quits once everything sent is acknowledged, with status 0.
    @Test func messagesAndDirectMessagesBetweenTwoClients() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try Self.client(port: server.port, nick: "bob")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("bob joined") } != nil)
        // The roster of a room without topic, modes or operators (which it carries, empty) is the
        // members alone.
        let roster = bob.waitForLine(timeout: 10) { untimed($0).hasPrefix("#lobby members:") }.map(untimed)
        #expect(roster == "#lobby members: bob", "\(bob.outputLines)")
        let alice = try Self.client(port: server.port, nick: "alice")
        alice.write("hello from a script\n/msg bob a secret\n")
        #expect(bob.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> hello from a script" } != nil)
        #expect(bob.waitForLine(timeout: 10) { untimed($0) == "*alice* a secret" } != nil)
        alice.closeInput()
        #expect(alice.finish(timeout: 10).status == 0)
        #expect(bob.waitForLine(timeout: 10) { $0.contains("alice left (quit)") } != nil)
    }

    /// --json prints each event as one JSON object carrying type, text and sender.
    @Test func jsonModePrintsOneObjectPerEvent() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let bob = try Self.client(port: server.port, nick: "bob", ["--json"])
        let line = bob.waitForLine(timeout: 10) { $0.hasPrefix("{") && $0.contains("\"type\":\"welcome\"") }
        let object = try #require(line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(object["sender"] as? String == "bob")
        #expect(object["text"] != nil)
    }

    /// A server that is not there: a clear error and a non-zero status, not a hang.
    @Test func unreachableServerFailsClearly() throws {
        let client = try Self.client(port: 9, nick: "nobody")
        client.closeInput()
        let result = client.finish(timeout: 30)
        #expect(result.status != 0)
        #expect(result.errors.contains("chat-client"))
    }
}
