import Foundation
import TestSupport
import Testing

/// Discovery and trust on first use on a real (if private) local network: two network
/// namespaces joined by a veth pair, each with its own D-Bus system bus and avahi-daemon
/// (``LocalNetworkLab``), the real chat-server and chat-client run inside them.
@Suite("local network discovery", .serialized,
       .enabled(if: LocalNetworkLab.unavailableReason == nil, "\(LocalNetworkLab.unavailableReason ?? "")"))
struct LocalNetworkTests {
    static let name = "qchat lab"

    /// A self-signed server advertised in one namespace; on the other, --discover lists it
    /// within 5 s with its address, port and TXT (v, alpn, fp); --server NAME with
    /// --trust-on-first-use connects, chats and keeps the fingerprint; the server's certificate
    /// is replaced and the client refuses it naming both fingerprints; the server stopping
    /// removes it from the running --discover.
    @Test func advertiseDiscoverTrustRefuseWithdraw() throws {
        let lab = try LocalNetworkLab()
        defer { lab.close() }
        let state = lab.server.directory.appendingPathComponent("state").path
        let config = lab.client.directory.appendingPathComponent("config").path
        let environment = ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": lab.client.directory.path]

        var server = try startServer(lab, state: state, port: 0)
        defer { server.stop() }
        let firstPrint = try #require(fingerprint(loggedBy: server))
        let port = server.port

        let discover = try lab.start(on: lab.client, BuildPaths.product("chat-client"), ["--discover", "--plain", "--wait", "0"],
                                     environment: environment)
        defer { discover.terminate() }
        let listed = "+\t\(Self.name)\t\(lab.server.address)\t\(port)\tsha256:\(firstPrint)\t1.1\tqchat/1"
        #expect(discover.waitForLine(timeout: 5) { $0 == listed } != nil, "\(discover.outputLines) \(discover.errorOutput)")

        let alice = try lab.start(on: lab.client, BuildPaths.product("chat-client"),
                                  ["--server", Self.name, "--plain", "--nick", "alice", "--trust-on-first-use"], environment: environment)
        alice.write("hello over the lab\n")
        #expect(alice.waitForLine(timeout: 10) { $0.hasSuffix("<alice> hello over the lab") } != nil, "\(alice.errorOutput)")
        alice.closeInput()
        let first = alice.finish(timeout: 10)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.errors.contains("trusting \(lab.server.address):\(port) (sha256:\(firstPrint))"), "\(first.errors)")
        let known = try String(contentsOfFile: config + "/qchat/known_servers", encoding: .utf8)
        #expect(known.contains("\(lab.server.address) \(port) sha256:\(firstPrint)\n"), "\(known)")
        // known_servers keeps the strict format every earlier client reads (one unknown line would
        // make the whole file damaged to it): the name is kept in known_names.
        #expect(known.split(separator: "\n").allSatisfy { $0.hasPrefix("#") || $0.split(separator: " ").count == 3 && !$0.hasPrefix("name:") },
                "\(known)")
        let names = try String(contentsOfFile: config + "/qchat/known_names", encoding: .utf8)
        #expect(names.hasSuffix("\nname:\(Self.name.replacingOccurrences(of: " ", with: "%20")) sha256:\(firstPrint)\n"), "\(names)")

        // The server goes: its service leaves the listing.
        server.stop()
        #expect(discover.waitForLine(timeout: 10) { $0 == "-\t\(Self.name)" } != nil, "\(discover.outputLines)")

        // Back on the same port with a new certificate: listed with the new fp, refused by the client.
        try FileManager.default.removeItem(atPath: state + "/self-signed.pem")
        server = try startServer(lab, state: state, port: port)
        let secondPrint = try #require(fingerprint(loggedBy: server))
        #expect(secondPrint != firstPrint)
        #expect(server.process.waitForLine(timeout: 10) { $0.contains(" advertised ") } != nil, "\(lab.daemonLog(of: lab.server))")
        #expect(discover.waitForLine(timeout: 10) { $0.hasPrefix("+\t\(Self.name)\t") && $0.contains(secondPrint) } != nil,
                "\(discover.outputLines) \(discover.errorOutput) \(server.process.outputLines.suffix(5))")
        let again = try lab.start(on: lab.client, BuildPaths.product("chat-client"),
                                  ["--server", Self.name, "--plain", "--nick", "alice", "--trust-on-first-use"], environment: environment)
        again.write("must not be sent\n")
        let refused = again.finish(timeout: 20)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("HAS CHANGED"), "\(refused.errors)")
        #expect(refused.errors.contains("sha256:\(firstPrint)") && refused.errors.contains("sha256:\(secondPrint)"))
        // Its address's line and its name's (issue 24: trust follows the name the server was chosen by).
        #expect(refused.errors.contains("line 3 of \(config)/qchat/known_servers and line 3 of \(config)/qchat/known_names"), "\(refused.errors)")
        #expect(!refused.output.contains("must not be sent"))
    }

    /// A server whose avahi-daemon is not running serves anyway and says so in one line; once
    /// the daemon is back it is advertised and found (--discover --json: one object per change).
    @Test func serverWithoutDaemonServesAndAdvertisesOnceItIsBack() throws {
        let lab = try LocalNetworkLab()
        defer { lab.close() }
        lab.stopDaemon(on: lab.server)
        let server = try startServer(lab, state: lab.server.directory.appendingPathComponent("state").path, port: 0)
        defer { server.stop() }
        #expect(server.process.waitForLine(timeout: 10) { $0.contains("not advertised") && $0.contains("serving=yes") } != nil)
        try lab.restartDaemon(on: lab.server)
        #expect(server.process.waitForLine(timeout: 15) { $0.contains(" advertised ") } != nil, "\(server.process.outputLines)")
        let discover = try lab.start(on: lab.client, BuildPaths.product("chat-client"), ["--discover", "--json", "--wait", "10"])
        let json = "{\"event\":\"appeared\",\"name\":\"\(Self.name)\",\"address\":\"\(lab.server.address)\",\"port\":\(server.port),\"fp\":\"sha256:"
        #expect(discover.waitForLine(timeout: 10) { $0.hasPrefix(json) && $0.hasSuffix("\",\"v\":\"1.1\",\"alpn\":\"qchat/1\"}") } != nil,
                "\(discover.outputLines)")
        discover.terminate()
        #expect(server.process.lineCount { $0.contains("not advertised") } == 1)
    }

    /// A second server taking a name already advertised gets avahi's alternative name, logged;
    /// both are listed. The server's avahi-daemon restarting is logged, and the service is
    /// published again and found.
    @Test func nameCollisionAndDaemonRestart() throws {
        let lab = try LocalNetworkLab()
        defer { lab.close() }
        let first = try startServer(lab, state: lab.server.directory.appendingPathComponent("one").path, port: 0)
        defer { first.stop() }
        #expect(first.process.waitForLine(timeout: 10) { $0.contains(" advertised ") } != nil)
        let second = try startServer(lab, state: lab.server.directory.appendingPathComponent("two").path, port: 0)
        defer { second.stop() }
        let taken = second.process.waitForLine(timeout: 10) { $0.contains("advertised name taken") }
        #expect(taken?.contains("now=\"\(Self.name) #2\"") == true, "\(taken ?? "") \(second.process.errorOutput)")
        let discover = try lab.start(on: lab.client, BuildPaths.product("chat-client"), ["--discover", "--plain", "--wait", "0"])
        defer { discover.terminate() }
        #expect(discover.waitForLine(timeout: 5) { $0.hasPrefix("+\t\(Self.name)\t\(lab.server.address)\t\(first.port)\t") } != nil)
        #expect(discover.waitForLine(timeout: 5) { $0.hasPrefix("+\t\(Self.name) #2\t\(lab.server.address)\t\(second.port)\t") } != nil,
                "\(discover.outputLines)")

        try lab.restartDaemon(on: lab.server)
        #expect(first.process.waitForLine(timeout: 10) { $0.contains("avahi-daemon went away") } != nil)
        #expect(first.process.waitForLine(timeout: 15, skipping: 1) { $0.contains(" advertised ") } != nil, "\(first.process.errorOutput)")
        // Its own home: it trusts and keeps the server it finds (before, it wrote root's known_servers).
        let config = lab.client.directory.appendingPathComponent("config").path
        let after = try lab.start(on: lab.client, BuildPaths.product("chat-client"), ["--server", Self.name, "--plain", "--nick", "dave",
                                                                                       "--trust-on-first-use"],
                                  environment: ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": lab.client.directory.path])
        after.write("back after the restart\n")
        #expect(after.waitForLine(timeout: 10) { $0.hasSuffix("<dave> back after the restart") } != nil, "\(after.errorOutput)")
        after.closeInput()
        #expect(after.finish(timeout: 10).status == 0)
    }

    /// --server NAME when the name is not on the network gives up after --wait seconds, and with
    /// no avahi-daemon to ask it says so at once; both are usage errors (status 2) that say what
    /// to do. Under `make test-asan` these are the lookup's other ways out (the deadline passing,
    /// the browser failing), whose event loop must be freed as on success.
    @Test func serverNameNotFoundOrNoDaemonIsAClearError() throws {
        let lab = try LocalNetworkLab()
        defer { lab.close() }
        let missing = try lab.start(on: lab.client, BuildPaths.product("chat-client"), ["--server", "nobody here", "--plain", "--wait", "1"])
            .finish(timeout: 15)
        #expect(missing.status == 2, "\(missing.errors)")
        #expect(missing.errors.contains("no server named 'nobody here' found on the local network within 1 s"), "\(missing.errors)")

        lab.stopDaemon(on: lab.client)
        let noDaemon = try lab.start(on: lab.client, BuildPaths.product("chat-client"), ["--server", Self.name, "--plain"])
            .finish(timeout: 15)
        #expect(noDaemon.status == 2, "\(noDaemon.errors)")
        #expect(noDaemon.errors.contains("no avahi-daemon to ask about the local network"), "\(noDaemon.errors)")
        #expect(noDaemon.errors.contains("connect with --host and --port"), "\(noDaemon.errors)")
    }

    /// The full-screen --discover lists the server as it appears; Enter connects to it; the
    /// trust question is asked in the room (the advertised fp matching); yes trusts, lists it in
    /// known_servers and the chat goes on.
    @Test func pickInTheFullScreenUIThenTrustOnce() throws {
        let lab = try LocalNetworkLab()
        defer { lab.close() }
        let server = try startServer(lab, state: lab.server.directory.appendingPathComponent("state").path, port: 0)
        defer { server.stop() }
        let print = try #require(fingerprint(loggedBy: server))
        let config = lab.client.directory.appendingPathComponent("config").path
        let command = lab.shellCommand(on: lab.client, BuildPaths.product("chat-client"), ["--discover", "--nick", "carol"],
                                       environment: ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": lab.client.directory.path])
        let tui = try TmuxSession(command: command + "; echo EXITED $?; sleep 60", columns: 200, rows: 40)
        defer { tui.kill() }
        #expect(tui.waitFor { $0.contains { $0.hasPrefix("1 \(Self.name)  \(lab.server.address):\(server.port)  sha256:\(print.prefix(16))") } },
                "\(tui.screen())")
        try tui.press("Enter")
        #expect(tui.waitFor { $0.joined().contains("Type yes to trust it") }, "\(tui.screen())")
        #expect(tui.screen().joined().contains("fingerprint is sha256:\(print)"))
        // A match is shown as what it is: no reassurance (whoever answers can advertise any).
        #expect(tui.screen().joined().contains("which proves nothing"), "\(tui.screen())")
        try tui.type("yes")
        try tui.press("Enter")
        #expect(tui.waitFor { $0.joined().contains("carol joined") }, "\(tui.screen())")
        let known = try String(contentsOfFile: config + "/qchat/known_servers", encoding: .utf8)
        #expect(known.contains("\(lab.server.address) \(server.port) sha256:\(print)\n"))
        try tui.type("hello from the picker")
        try tui.press("Enter")
        #expect(tui.waitFor { $0.contains { $0.contains("<carol> hello from the picker") } })
    }

    /// A network announcing more services than a browser follows (256): --discover lists 256,
    /// says once that there are more, and stays well.
    @Test func aBrowserFollowsAtMost256Services() throws {
        let lab = try LocalNetworkLab()
        defer { lab.close() }
        let groups = (1...300).map { index in
            "<?xml version=\"1.0\" standalone='no'?>\n<service-group><name>flood \(index)</name><service><type>_qchat._udp</type>"
                + "<port>\(10_000 + index)</port><txt-record>v=1.1</txt-record></service></service-group>\n"
        }
        try lab.restartDaemon(on: lab.server, services: groups)
        let discover = try lab.start(on: lab.client, BuildPaths.product("chat-client"), ["--discover", "--plain", "--wait", "0"])
        defer { discover.terminate() }
        #expect(discover.waitForLine(timeout: 20) { $0.contains("more than 256 services on the local network") } != nil,
                "\(discover.errorOutput) \(discover.outputLines.count) \(lab.daemonLog(of: lab.server).suffix(5))")
        #expect(discover.waitForLine(timeout: 20, skipping: 255) { $0.hasPrefix("+\tflood ") } != nil, "\(discover.outputLines.count)")
        // Resolutions still coming in must not pass the limit.
        let deadline = Date().addingTimeInterval(3)
        while Date() < deadline { usleep(100_000) }
        #expect(discover.lineCount { $0.hasPrefix("+\tflood ") } == 256)
        #expect(discover.lineCount { $0.contains("more than 256") } == 1)
        #expect(discover.isRunning)
    }

    /// Issue 24, defect 18: on the same network, while the trusted server is away, another machine
    /// advertises its name with a certificate of its own (and, in its TXT record, that
    /// certificate's fingerprint) at another address. `--server NAME --trust-on-first-use` must
    /// refuse it as a changed certificate, not trust it as a new server.
    @Test func anImpostorAdvertisingATrustedNameIsRefused() throws {
        let lab = try LocalNetworkLab()
        defer { lab.close() }
        let config = lab.client.directory.appendingPathComponent("config").path
        let environment = ["XDG_CONFIG_HOME": config, "XDG_STATE_HOME": lab.client.directory.path]
        let trusted = try startServer(lab, state: lab.server.directory.appendingPathComponent("trusted").path, port: 0)
        let trustedPrint = try #require(fingerprint(loggedBy: trusted))
        #expect(trusted.process.waitForLine(timeout: 10) { $0.contains(" advertised ") } != nil, "\(lab.daemonLog(of: lab.server))")
        let alice = try lab.start(on: lab.client, BuildPaths.product("chat-client"),
                                  ["--server", Self.name, "--plain", "--nick", "alice", "--trust-on-first-use"], environment: environment)
        alice.write("hello the real one\n")
        alice.closeInput()
        #expect(alice.finish(timeout: 20).status == 0)
        trusted.stop()

        let impostor = try startServer(lab, state: lab.server.directory.appendingPathComponent("impostor").path, port: 0)
        defer { impostor.stop() }
        let impostorPrint = try #require(fingerprint(loggedBy: impostor))
        #expect(impostorPrint != trustedPrint && impostor.port != trusted.port)
        #expect(impostor.process.waitForLine(timeout: 10) { $0.contains(" advertised ") } != nil, "\(lab.daemonLog(of: lab.server))")
        let victim = try lab.start(on: lab.client, BuildPaths.product("chat-client"),
                                   ["--server", Self.name, "--plain", "--nick", "alice", "--trust-on-first-use"], environment: environment)
        victim.write("a secret for the real one\n")
        let run = victim.finish(timeout: 20)
        #expect(run.status == 1, "\(run.output) \(run.errors)")
        #expect(run.errors.contains("HAS CHANGED") && run.errors.contains("sha256:\(trustedPrint)") && run.errors.contains("sha256:\(impostorPrint)"),
                "\(run.errors)")
        #expect(!run.output.contains("a secret for the real one"))
        let known = try String(contentsOfFile: config + "/qchat/known_servers", encoding: .utf8)
            + String(contentsOfFile: config + "/qchat/known_names", encoding: .utf8)
        #expect(!known.contains(impostorPrint), "\(known)")
    }

    private func startServer(_ lab: LocalNetworkLab, state: String, port: UInt16) throws -> ChatServerProcess {
        let command = lab.command(on: lab.server, BuildPaths.product("chat-server"),
                                  ["--host", "0.0.0.0", "--port", "\(port)", "--self-signed", "--state-dir", state,
                                   "--advertise", Self.name, "--log-level", "debug"])
        return try ChatServerProcess(exactly: command.arguments, executable: command.executable)
    }

    /// The fingerprint in the server's "self-signed certificate" log line.
    private func fingerprint(loggedBy server: ChatServerProcess) -> String? {
        guard let line = server.process.waitForLine(timeout: 10, where: { $0.contains("self-signed certificate") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("fp=sha256:") }) else { return nil }
        return String(field.dropFirst("fp=sha256:".count))
    }
}
