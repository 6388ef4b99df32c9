import Foundation
import TestSupport
import Testing

/// Trust on first use with the real binaries on loopback: a `--self-signed` server no CA signs,
/// chat-client in line mode with its own `$XDG_CONFIG_HOME/qchat/known_servers`.
@Suite("trust on first use", .serialized)
struct TrustOnFirstUseTests {
    final class SelfSignedServer {
        let process: ChatServerProcess
        let fingerprint: String
        var port: UInt16 { process.port }

        init(state: String = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-state-\(UUID().uuidString.prefix(8))").path) throws {
            process = try ChatServerProcess(exactly: ["--host", "127.0.0.1", "--port", "0", "--self-signed", "--state-dir", state])
            let line = try #require(process.process.waitForLine(timeout: 10) { $0.contains("self-signed certificate") })
            let field = try #require(line.split(separator: " ").first { $0.hasPrefix("fp=sha256:") })
            fingerprint = String(field.dropFirst("fp=sha256:".count))
        }

        deinit { process.stop() }
    }

    static func client(_ home: ClientHome, port: UInt16, _ extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(BuildPaths.product("chat-client"), ["--host", "127.0.0.1", "--port", "\(port)", "--nick", "alice", "--plain"] + extra,
                         environment: home.environment)
    }

    static func knownServers(_ home: ClientHome) -> String { home.configDirectory + "/qchat/known_servers" }

    /// An unknown server: its fingerprint is shown and asked about before anything is read or
    /// sent; `yes` trusts it, keeps it in known_servers and connects; the next run finds it
    /// there and connects without asking.
    @Test func asksOnceThenRemembers() throws {
        let server = try SelfSignedServer()
        let home = try ClientHome()
        let first = try Self.client(home, port: server.port)
        let question = try #require(first.waitForLine(timeout: 10) { $0.contains("Type yes to trust it") })
        #expect(question.contains(Self.knownServers(home)))
        #expect(first.lineCount { $0.contains("fingerprint is sha256:\(server.fingerprint)") } == 1)
        first.write("yes\nhello after trusting\n")
        #expect(first.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> hello after trusting" } != nil, "\(first.errorOutput)")
        first.closeInput()
        #expect(first.finish(timeout: 10).status == 0)
        let known = try String(contentsOfFile: Self.knownServers(home), encoding: .utf8)
        #expect(known.hasSuffix("\n127.0.0.1 \(server.port) sha256:\(server.fingerprint)\n"), "\(known)")
        #expect(known.hasPrefix("#"))
        let mode = try FileManager.default.attributesOfItem(atPath: Self.knownServers(home))[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let second = try Self.client(home, port: server.port)
        second.write("hello again\n")
        #expect(second.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> hello again" } != nil, "\(second.errorOutput)")
        second.closeInput()
        let run = second.finish(timeout: 10)
        #expect(run.status == 0)
        #expect(!run.errors.contains("not known"), "\(run.errors)")
        #expect(try String(contentsOfFile: Self.knownServers(home), encoding: .utf8) == known)
    }

    /// Any answer but `yes`, or the end of input, trusts nothing, sends nothing, lists nothing.
    @Test func anythingButYesGivesUp() throws {
        let server = try SelfSignedServer()
        let home = try ClientHome()
        let client = try Self.client(home, port: server.port)
        #expect(client.waitForLine(timeout: 10) { $0.contains("Type yes to trust it") } != nil)
        client.write("y\nnot to be sent\n")
        let run = client.finish(timeout: 10)
        #expect(run.status == 1)
        #expect(run.errors.contains("not trusted; nothing was sent to 127.0.0.1:\(server.port)"), "\(run.errors)")
        #expect(!run.output.contains("not to be sent"))
        #expect(!FileManager.default.fileExists(atPath: Self.knownServers(home)))

        let silent = try ChildProcess(BuildPaths.product("chat-client"), ["--host", "127.0.0.1", "--port", "\(server.port)", "--nick", "bob", "--plain"],
                                      environment: home.environment, standardInput: "/dev/null")
        let ended = silent.finish(timeout: 10)
        #expect(ended.status == 1)
        #expect(ended.errors.contains("no answer: the input ended"), "\(ended.errors)")
        #expect(!FileManager.default.fileExists(atPath: Self.knownServers(home)))
    }

    /// A listed server presenting another certificate is refused loudly, --trust-on-first-use
    /// or not: both fingerprints, the file and line to edit; nothing is sent, the file unchanged.
    @Test func aChangedCertificateIsRefused() throws {
        let server = try SelfSignedServer()
        let home = try ClientHome()
        let old = String(repeating: "5a", count: 32)
        let text = "# mine\n127.0.0.1 \(server.port) sha256:\(old)\n"
        try text.write(toFile: Self.knownServers(home), atomically: true, encoding: .utf8)
        for extra in [[], ["--trust-on-first-use"]] {
            let client = try Self.client(home, port: server.port, extra)
            client.write("must not be sent\n")
            let run = client.finish(timeout: 10)
            #expect(run.status == 1)
            #expect(run.errors.contains("THE CERTIFICATE OF 127.0.0.1:\(server.port) HAS CHANGED"), "\(run.errors)")
            #expect(run.errors.contains("known:     sha256:\(old) (line 2 of \(Self.knownServers(home)))"), "\(run.errors)")
            #expect(run.errors.contains("presented: sha256:\(server.fingerprint)"))
            #expect(run.errors.contains("delete line 2 of \(Self.knownServers(home))"))
            #expect(!run.output.contains("must not be sent"))
        }
        #expect(try String(contentsOfFile: Self.knownServers(home), encoding: .utf8) == text)
    }

    /// A damaged known_servers stops the client before it connects, naming the file and line;
    /// the server is never trusted from it.
    @Test func aCorruptFileIsAClearError() throws {
        let server = try SelfSignedServer()
        let home = try ClientHome()
        try "127.0.0.1 \(server.port) sha256:\(server.fingerprint)\nthis line is damaged\n"
            .write(toFile: Self.knownServers(home), atomically: true, encoding: .utf8)
        let run = try Self.client(home, port: server.port, ["--trust-on-first-use"]).finish(timeout: 10)
        #expect(run.status == 2)
        #expect(run.errors.contains("\(Self.knownServers(home)) line 2: expected HOST PORT sha256:FINGERPRINT, found 4 field(s)"), "\(run.errors)")
        #expect(run.errors.contains("no server is trusted from a damaged file"))
        #expect(run.output.isEmpty)

        // Over the 1 MiB limit: refused as a whole, also when the server's line comes first.
        let long = "127.0.0.1 \(server.port) sha256:\(server.fingerprint)\n" + String(repeating: "#\n", count: 600_000)
        try long.write(toFile: Self.knownServers(home), atomically: true, encoding: .utf8)
        let tooLong = try Self.client(home, port: server.port, ["--trust-on-first-use"]).finish(timeout: 10)
        #expect(tooLong.status == 2)
        #expect(tooLong.errors.contains("cannot read \(Self.knownServers(home))"), "\(tooLong.errors)")
        #expect(tooLong.errors.contains("no server is trusted from a file that cannot be read"))
    }

    /// A DNS-SD instance name is one DNS label: --server refuses more than 63 bytes before
    /// looking (and --discover and --host do not go with it); --wait is at most an hour;
    /// --trust-on-first-use does not go with --ca or --insecure.
    @Test func serverNamesAreOneLabel() throws {
        let home = try ClientHome()
        let long = try ChildProcess(BuildPaths.product("chat-client"), ["--server", String(repeating: "é", count: 32), "--plain"],
                                    environment: home.environment).finish(timeout: 10)
        #expect(long.status == 2)
        #expect(long.errors.contains("--server takes an instance name of 1 to 63 bytes"), "\(long.errors)")
        let both = try ChildProcess(BuildPaths.product("chat-client"), ["--server", "x", "--host", "h", "--plain"],
                                    environment: home.environment).finish(timeout: 10)
        #expect(both.status == 2)
        #expect(both.errors.contains("not with --discover, --host or --port"))
        let wait = try ChildProcess(BuildPaths.product("chat-client"), ["--discover", "--wait", "3601", "--plain"],
                                    environment: home.environment).finish(timeout: 10)
        #expect(wait.status == 2)
        #expect(wait.errors.contains("--wait"), "\(wait.errors)")
        for other in [["--ca", TestCertificates.ca], ["--insecure"]] {
            let clash = try ChildProcess(BuildPaths.product("chat-client"), ["--trust-on-first-use", "--nick", "a", "--plain"] + other,
                                         environment: home.environment).finish(timeout: 10)
            #expect(clash.status == 2)
            #expect(clash.errors.contains("not with --ca or --insecure"), "\(clash.errors)")
        }
    }

    /// --trust-on-first-use takes an unknown server without asking and lists it; a CA named
    /// with --ca alone decides, so a self-signed server is then refused without a question.
    @Test func scriptsTrustWithoutAskingAndANamedCAAloneDecides() throws {
        let server = try SelfSignedServer()
        let home = try ClientHome()
        let script = try Self.client(home, port: server.port, ["--trust-on-first-use"])
        script.write("scripted\n")
        #expect(script.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> scripted" } != nil, "\(script.errorOutput)")
        script.closeInput()
        let run = script.finish(timeout: 10)
        #expect(run.status == 0)
        #expect(run.errors.contains("trusting 127.0.0.1:\(server.port) (sha256:\(server.fingerprint)), kept on line 3 of \(Self.knownServers(home))"))

        let strict = try Self.client(try ClientHome(), port: server.port, ["--ca", TestCertificates.ca])
        let refused = strict.finish(timeout: 10)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("cannot trust 127.0.0.1:\(server.port)"), "\(refused.errors)")
        #expect(!refused.errors.contains("Type yes"))
    }
}
