import Foundation
import TestSupport
import Testing

/// Start-up failures end with one clear message and a non-zero status instead of retrying
/// forever: a certificate the CA does not sign, a bad nick or room, no server at all.
@Suite("chat-client start-up failures", .serialized)
struct StartupFailureTests {
    /// The client's problems on stderr, without the lines every run prints.
    static func complaints(_ errors: String) -> [String] {
        errors.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// A server certificate that --ca does not sign is not retried: one message naming the
    /// certificate problem, status 1, no "connection lost".
    @Test func untrustedCertificateEndsAtOnce() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let client = try ChildProcess(BuildPaths.product("chat-client"),
                                      ["--port", "\(server.port)", "--nick", "bob", "--ca", TestCertificates.otherCA, "--host", "localhost",
                                       "--plain"], environment: home.environment)
        #expect(client.waitForExit(timeout: 20), "still running")
        let result = client.finish(timeout: 1)
        #expect(result.status == 1)
        let lines = Self.complaints(result.errors)
        #expect(lines.count == 1 && lines[0].contains("certificate"), "\(lines)")
        #expect(!result.errors.contains("connection lost") && !result.errors.contains("reconnecting"))
    }

    /// An invalid --nick or --room is refused before connecting, with status 2; `#general` is
    /// taken as the room general.
    @Test func badNickOrRoomIsRefused() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let badNick = try home.lineClient(port: server.port, nick: "bad nick!")
        #expect(badNick.waitForExit(timeout: 10), "still running")
        let nickResult = badNick.finish(timeout: 1)
        #expect(nickResult.status == 2)
        #expect(Self.complaints(nickResult.errors).count == 1 && nickResult.errors.contains("nick"), "\(nickResult.errors)")
        let badRoom = try home.lineClient(port: server.port, nick: "bob", ["--room", "no room"])
        #expect(badRoom.waitForExit(timeout: 10), "still running")
        let roomResult = badRoom.finish(timeout: 1)
        #expect(roomResult.status == 2)
        #expect(Self.complaints(roomResult.errors).count == 1 && roomResult.errors.contains("room"), "\(roomResult.errors)")
        let hashed = try home.lineClient(port: server.port, nick: "bob", ["--room", "#general"])
        #expect(hashed.waitForEvent("#general * bob joined"))
        hashed.closeInput()
        #expect(hashed.finish(timeout: 10).status == 0)
    }

    /// No server: once the handshake fails (at once here: the closed port answers ICMP port
    /// unreachable; elsewhere at its timeout), "could not reach", status 1, never "connection
    /// lost" for a connection that never existed.
    @Test func noServerEndsWithCouldNotReach() throws {
        let home = try ClientHome()
        defer { home.remove() }
        let client = try home.lineClient(port: ReconnectTests.freePort(), nick: "bob")
        #expect(client.waitForExit(timeout: 40), "still running")
        let result = client.finish(timeout: 1)
        #expect(result.status == 1)
        let lines = Self.complaints(result.errors)
        #expect(lines.count == 1 && lines[0].contains("could not reach"), "\(lines)")
    }

    /// Issue 24, defect 7: line mode with `--wait 0` waits for a server that is down at start
    /// (without --wait it ends, as above), and delivers what it was given once the server is up.
    @Test func lineModeWaitsForAServerDownAtStart() throws {
        let home = try ClientHome()
        defer { home.remove() }
        let port = ReconnectTests.freePort()
        let client = try home.lineClient(port: port, nick: "bob", ["--wait", "0"])
        client.write("said before the server was up\n")
        #expect(client.waitForLine(timeout: 10) { $0.contains("; trying") } != nil, "\(client.errorOutput)")
        #expect(!client.waitForExit(timeout: 2), "ended: \(client.errorOutput)")
        let server = try ChatServerProcess(["--port", "\(port)"])
        defer { server.stop() }
        #expect(client.waitForEvent("#lobby <bob> said before the server was up", timeout: 30), "\(client.errorOutput)")
        client.closeInput()
        #expect(client.finish(timeout: 20).status == 0)
    }

    /// Issue 24, defect 7: the full-screen UI started while the server is down waits for it, as
    /// it does after a loss, and joins once it is up.
    @Test func fullScreenWaitsForAServerDownAtStart() throws {
        let home = try ClientHome()
        defer { home.remove() }
        let port = ReconnectTests.freePort()
        let bob = try DailyDriverTests.fullScreen(home, port: port, nick: "bob")
        #expect(bob.waitFor { ($0.first ?? "").contains("reconnecting") }, "\(bob.dump)")
        let server = try ChatServerProcess(["--port", "\(port)"])
        defer { server.stop() }
        #expect(bob.waitFor(timeout: 30) { $0.joined().contains("bob joined") }, "\(bob.dump)")
        #expect(!bob.dump.contains("EXITED"))
    }

    /// In the full-screen UI a bad nick is not fatal: the person is asked for another and the
    /// client connects with it.
    @Test func fullScreenAsksForAnotherNick() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bad nick!")
        #expect(bob.waitFor { $0.joined().contains("not a valid nick") }, "\(bob.dump)")
        try bob.type("bob")
        try bob.press("Enter")
        #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
    }

    /// A certificate failure in the full-screen UI leaves the screen and says why, status 1.
    @Test func fullScreenUntrustedCertificateEnds() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob", ["--ca", TestCertificates.otherCA])
        #expect(bob.waitFor(timeout: 20) { $0.contains { $0.contains("EXITED 1") } }, "\(bob.dump)")
        #expect(bob.dump.contains("certificate"))
    }
}

/// `-h`, `--help` and `--version` answer on standard output with status 0.
@Suite("chat-client help and version")
struct HelpTests {
    @Test(arguments: [["--help"], ["-h"]])
    func helpOnStandardOutput(arguments: [String]) throws {
        let result = try ChildProcess(BuildPaths.product("chat-client"), arguments).finish(timeout: 10)
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("usage: chat-client") && result.output.contains("Configuration file"))
        #expect(result.errors.isEmpty)
    }

    @Test func versionOnStandardOutput() throws {
        let result = try ChildProcess(BuildPaths.product("chat-client"), ["--version"]).finish(timeout: 10)
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("chat-client "))
    }

    /// A mistake in the configuration file is named with its line, status 2.
    @Test func badConfigurationIsNamed() throws {
        let home = try ClientHome()
        defer { home.remove() }
        try home.writeConfiguration("nick = bob\ncolours = off\n")
        let client = try home.lineClient(port: 4433, nick: "bob")
        #expect(client.waitForExit(timeout: 10))
        let result = client.finish(timeout: 1)
        #expect(result.status == 2)
        #expect(result.errors.contains("client.conf line 2: unknown setting 'colours'"), "\(result.errors)")
    }
}
