import Foundation
import Glibc
import TestSupport
import Testing

/// chat-client with several servers (`--server HOST:PORT` repeated, `server =`, a name with several
/// addresses; PROTOCOL.md section 10), with real binaries: standalone chat-server processes that
/// share nothing, killed with SIGKILL; the client moves to the next one and keeps chatting.
@Suite("chat-client with several servers", .serialized)
struct SeveralServersTests {
    /// Line mode in its own home, on the servers given, with the test CA unless `ca` is false.
    static func client(_ home: ClientHome, nick: String, servers: [String], ca: Bool = true, _ extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(BuildPaths.product("chat-client"),
                         servers.flatMap { ["--server", $0] } + (ca ? ["--ca", TestCertificates.ca] : []) + ["--nick", nick, "--plain"] + extra,
                         environment: home.environment)
    }

    /// Kills a server as a crash would, and waits until it is gone.
    static func kill(_ server: ChatServerProcess) {
        server.process.signal(SIGKILL)
        _ = server.process.finish(timeout: 5)
    }

    /// How many clients said hello to a server (its log).
    static func hellos(_ server: ChatServerProcess, nick: String) -> Int {
        server.process.lineCount { $0.contains(" info hello ") && $0.contains(" nick=\(nick) ") }
    }

    /// Alice is on A and B (in that order); A is killed; the line she types next makes her client
    /// see A is gone (ICMP port unreachable), move to B and send it there: Bob, on B, gets it
    /// exactly once, and she keeps chatting on B.
    @Test func aClientMovesToTheNextServerWhenOneDies() throws {
        let a = try ChatServerProcess(), b = try ChatServerProcess()
        defer { b.stop() }
        let bob = try LineModeTests.client(port: b.port, nick: "bob")
        #expect(bob.waitForEvent("#lobby * bob joined"))
        let home = try ClientHome()
        defer { home.remove() }
        let alice = try Self.client(home, nick: "alice", servers: ["localhost:\(a.port)", "localhost:\(b.port)"])
        #expect(alice.waitForLine(timeout: 10) { $0.contains("chat-client: connected to localhost:\(a.port)") } != nil)
        alice.write("on the first server\n")
        #expect(alice.waitForEvent("#lobby <alice> on the first server"))
        Self.kill(a)
        alice.write("after the kill\n")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("connection lost (") && $0.contains("reconnecting to localhost:\(b.port)") } != nil)
        #expect(alice.waitForLine(timeout: 10) { $0.contains("chat-client: reconnected to localhost:\(b.port)") } != nil)
        #expect(bob.waitForEvent("#lobby <alice> after the kill"))
        alice.write("still chatting\n")
        #expect(bob.waitForEvent("#lobby <alice> still chatting"))
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
        bob.closeInput()
        let lines = bob.finish(timeout: 10).output.split(separator: "\n").map { untimed(String($0)) }
        #expect(lines.filter { $0 == "#lobby <alice> after the kill" }.count == 1)
        #expect(!lines.contains("#lobby <alice> on the first server"))
        #expect(Self.hellos(b, nick: "alice") == 1)
    }

    /// A server that stops cleanly (SIGTERM: it closes every client with SHUTDOWN) is a reason to
    /// move too: the client goes to the next server by itself, without anything typed.
    @Test func aServerShuttingDownIsLeftToo() throws {
        let a = try ChatServerProcess(), b = try ChatServerProcess()
        defer { b.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let alice = try Self.client(home, nick: "alice", servers: ["localhost:\(a.port)", "localhost:\(b.port)"])
        #expect(alice.waitForLine(timeout: 10) { $0.contains("chat-client: connected to localhost:\(a.port)") } != nil)
        a.stop()
        #expect(alice.waitForLine(timeout: 10) { $0.contains("connection lost (") && $0.contains("0x4") && $0.contains("reconnecting to localhost:\(b.port)") }
            != nil, "\(alice.errorOutput)")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("chat-client: reconnected to localhost:\(b.port)") } != nil)
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }

    /// The servers are tried in the order given: a dead first one is passed at once (its port
    /// answers ICMP port unreachable), the second connects, the third is not tried; once the
    /// second dies, the third.
    @Test func serversAreTriedInOrder() throws {
        let dead = ReconnectTests.freePort()
        let a = try ChatServerProcess(), b = try ChatServerProcess()
        defer { b.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let alice = try Self.client(home, nick: "alice", servers: ["localhost:\(dead)", "localhost:\(a.port)", "localhost:\(b.port)"])
        let connected = alice.waitForLine(timeout: 10) { $0.contains("chat-client: connected to") }
        #expect(connected?.contains("connected to localhost:\(a.port)") == true)
        let errors = alice.errorOutput
        let passed = errors.firstIndex { $0.contains("127.0.0.1:\(dead)") && $0.contains("trying to localhost:\(a.port)") }
        let joined = errors.firstIndex { $0.contains("connected to localhost:\(a.port)") }
        #expect(passed != nil && joined != nil && passed! < joined!)
        #expect(!errors.contains { $0.contains("localhost:\(b.port)") })
        #expect(Self.hellos(a, nick: "alice") == 1 && Self.hellos(b, nick: "alice") == 0)
        Self.kill(a)
        alice.write("moved on\n")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("reconnected to localhost:\(b.port)") } != nil)
        #expect(alice.waitForEvent("#lobby <alice> moved on"))
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }

    /// A DNS name with several addresses is several servers: `localhost` resolving to ::1 and
    /// 127.0.0.1 (a hosts file bound over /etc/hosts in a mount namespace of the client's own),
    /// one server on each address with the same port; the first killed, the client goes on with
    /// the other.
    @Test func aNameWithSeveralAddressesIsSeveralServers() throws {
        let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-hosts-\(UUID().uuidString.prefix(8))").path
        try "::1 localhost\n127.0.0.1 localhost\n".write(toFile: hosts, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: hosts) }
        let probe = try ChildProcess("/usr/bin/unshare", ["--mount", "sh", "-c", "mount --bind \(hosts) /etc/hosts && getent ahosts localhost"])
        let resolved = probe.finish(timeout: 10)
        try #require(resolved.status == 0 && resolved.output.hasPrefix("::1"), "a mount namespace with its own /etc/hosts: \(resolved.errors)")
        let (v6, v4) = try Self.serversOnBothLoopbacks()
        defer { v4.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let command = ([BuildPaths.product("chat-client"), "--server", "localhost:\(v6.port)", "--ca", TestCertificates.ca, "--nick", "alice",
                        "--plain"]).map(shellQuoted).joined(separator: " ")
        let alice = try ChildProcess("/usr/bin/unshare", ["--mount", "sh", "-c", "mount --bind \(hosts) /etc/hosts && exec \(command)"],
                                     environment: home.environment)
        #expect(alice.waitForLine(timeout: 10) { $0.contains("connected to localhost:\(v6.port) (::1)") } != nil)
        Self.kill(v6)
        alice.write("over IPv4 now\n")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("reconnected to localhost:\(v6.port) (127.0.0.1)") } != nil)
        #expect(alice.waitForEvent("#lobby <alice> over IPv4 now"))
        #expect(Self.hellos(v4, nick: "alice") == 1)
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }

    /// A server on ::1 and one on 127.0.0.1 with the same port (the port the first picked; another
    /// pick when something else holds it on 127.0.0.1).
    static func serversOnBothLoopbacks() throws -> (v6: ChatServerProcess, v4: ChatServerProcess) {
        var tries = 0
        while true {
            let v6 = try ChatServerProcess(["--host", "::1"])
            do {
                return (v6, try ChatServerProcess(["--host", "127.0.0.1", "--port", "\(v6.port)"]))
            } catch {
                v6.stop()
                tries += 1
                if tries == 10 { throw error }
            }
        }
    }

    /// Every server passes the same verification as one alone: with `--ca`, a server whose
    /// self-signed certificate that CA does not sign is said and left out, and the client goes on
    /// to the next one.
    @Test func aServerThatFailsVerificationIsLeftOut() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-self-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let a = try ChatServerProcess()
        let untrusted = try ChatServerProcess(exactly: ["--port", "0", "--self-signed", "--state-dir", state, "--log-level", "debug"])
        let c = try ChatServerProcess()
        defer {
            untrusted.stop()
            c.stop()
        }
        let bob = try LineModeTests.client(port: c.port, nick: "bob")
        #expect(bob.waitForEvent("#lobby * bob joined"))
        let home = try ClientHome()
        defer { home.remove() }
        let alice = try Self.client(home, nick: "alice", servers: ["localhost:\(a.port)", "localhost:\(untrusted.port)", "localhost:\(c.port)"])
        #expect(alice.waitForLine(timeout: 10) { $0.contains("connected to localhost:\(a.port)") } != nil)
        Self.kill(a)
        alice.write("past the stranger\n")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("localhost:\(untrusted.port)") && $0.contains("not using it") } != nil)
        #expect(alice.waitForLine(timeout: 10) { $0.contains("reconnected to localhost:\(c.port)") } != nil)
        #expect(bob.waitForEvent("#lobby <alice> past the stranger"))
        #expect(Self.hellos(untrusted, nick: "alice") == 0)
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }

    /// Without a CA named, known_servers' rules hold per server: moving to a server no CA signs,
    /// `--trust-on-first-use` trusts it and lists it (HOST PORT sha256:…) without asking.
    @Test func trustOnFirstUseHoldsPerServer() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-self-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let a = try ChatServerProcess()
        let b = try ChatServerProcess(exactly: ["--port", "0", "--self-signed", "--state-dir", state, "--log-level", "debug"])
        defer { b.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        // The CA found by default verifies A (signed by it); B is trusted on first use.
        try FileManager.default.copyItem(atPath: TestCertificates.ca, toPath: home.configDirectory + "/qchat/ca.pem")
        let alice = try Self.client(home, nick: "alice", servers: ["localhost:\(a.port)", "localhost:\(b.port)"], ca: false,
                                    ["--trust-on-first-use"])
        #expect(alice.waitForLine(timeout: 10) { $0.contains("connected to localhost:\(a.port)") } != nil)
        Self.kill(a)
        alice.write("to the new one\n")
        #expect(alice.waitForLine(timeout: 10) { $0.contains("reconnected to localhost:\(b.port)") } != nil)
        #expect(alice.waitForEvent("#lobby <alice> to the new one"))
        let known = try String(contentsOfFile: home.configDirectory + "/qchat/known_servers", encoding: .utf8)
        #expect(known.split(separator: "\n").contains { $0.hasPrefix("localhost \(b.port) sha256:") })
        #expect(!known.contains("localhost \(a.port) "))
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
    }

    /// HOST:PORT is told from a name on the local network, mistakes are usage errors (status 2);
    /// `server =` in the configuration lists servers, on one line or several, and not with `host =`.
    @Test func serverOptionsAndTheConfiguration() throws {
        let home = try ClientHome()
        defer { home.remove() }
        let usage: ([String]) throws -> (Int32, String) = { arguments in
            let run = try ChildProcess(BuildPaths.product("chat-client"), arguments + ["--nick", "alice", "--plain"], environment: home.environment)
                .finish(timeout: 10)
            return (run.status, run.errors)
        }
        for (arguments, words) in [
            (["--server", "localhost:4433", "--server", "team chat"], "not both"),
            (["--server", "one name", "--server", "another"], "not both"),
            (["--server", "::1:4433"], "an IPv6 address goes in brackets"),
            (["--server", "[::1]"], "an IPv6 address goes in brackets"),
            (["--server", "localhost:70000"], "the port must be 1 to 65535"),
            (["--server", "localhost:4433", "--host", "localhost"], "not with --discover, --host or --port"),
            (["--server", "localhost:4433", "--discover"], "not with --discover, --host or --port"),
        ] {
            let (status, errors) = try usage(arguments)
            #expect(status == 2 && errors.contains(words), "\(arguments): \(errors)")
        }
        let help = try ChildProcess(BuildPaths.product("chat-client"), ["--help"]).finish(timeout: 10)
        #expect(help.output.contains("--server HOST:PORT"))

        let dead = ReconnectTests.freePort()
        let a = try ChatServerProcess()
        defer { a.stop() }
        try home.writeConfiguration("server = localhost:\(dead)\nserver = localhost:\(a.port)\nca = \(TestCertificates.ca)\n")
        let alice = try ChildProcess(BuildPaths.product("chat-client"), ["--nick", "alice", "--plain"], environment: home.environment)
        #expect(alice.waitForLine(timeout: 10) { $0.contains("connected to localhost:\(a.port)") } != nil)
        alice.closeInput()
        #expect(alice.finish(timeout: 10).status == 0)
        try home.writeConfiguration("server = localhost:\(dead), localhost:\(a.port)\nport = 4433\n")
        let (status, errors) = try usage([])
        #expect(status == 2 && errors.contains("server = names the servers itself: not with host = or port ="), "\(errors)")
    }
}
