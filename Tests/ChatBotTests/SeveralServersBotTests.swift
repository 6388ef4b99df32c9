import Foundation
import TestSupport
import Testing

/// chat-bot spreading its bots over several servers (`--server HOST:PORT` repeated), with real
/// standalone chat-server processes: round robin, in the order given, counted per server.
@Suite("chat-bot with several servers", .serialized)
struct SeveralServersBotTests {
    static func hellos(_ server: ChatServerProcess) -> [String] {
        server.process.errorOutput.filter { $0.contains(" info hello ") }
    }

    /// `load --clients 6` over two servers: clients 0, 2, 4 on the first and 1, 3, 5 on the
    /// second; the report counts 3 per server (JSON and table), and each server saw exactly those.
    @Test func loadSpreadsItsClientsRoundRobin() throws {
        let a = try ChatServerProcess(), b = try ChatServerProcess()
        defer {
            a.stop()
            b.stop()
        }
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("chat-bot-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let run = try ChildProcess(BuildPaths.product("chat-bot"),
                                   ["load", "--server", "127.0.0.1:\(a.port)", "--server", "127.0.0.1:\(b.port)", "--ca", TestCertificates.ca,
                                    "--clients", "6", "--rate", "0", "--duration", "1", "--warmup", "0", "--drain", "0", "--json", json])
            .finish(timeout: 60)
        #expect(run.status == 0, "\(run.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let connect = try #require(report["connect"] as? [String: Any])
        #expect(connect["joined"] as? Int == 6)
        let perServer = try #require(connect["joined_per_server"] as? [String: Int])
        #expect(perServer == ["127.0.0.1:\(a.port)": 3, "127.0.0.1:\(b.port)": 3])
        #expect((report["parameters"] as? [String: Any])?["server"] as? String == "127.0.0.1:\(a.port), 127.0.0.1:\(b.port)")
        #expect(run.output.contains("| joined per server | 127.0.0.1:\(a.port) 3, 127.0.0.1:\(b.port) 3 |"))
        // Only this run's clients count: another test's client that keeps reconnecting to its own
        // (stopped) server's port may reach one of these servers if the port was given out again.
        func loadNicks(_ server: ChatServerProcess) -> Set<Substring> {
            Set(Self.hellos(server).compactMap { $0.split(separator: " ").first { $0.hasPrefix("nick=load") } })
        }
        #expect(loadNicks(a) == ["nick=load0", "nick=load2", "nick=load4"])
        #expect(loadNicks(b) == ["nick=load1", "nick=load3", "nick=load5"])
    }

    /// `script` places bot N (in the script's order) on server N mod count: alice on the first,
    /// bob on the second, carol on the first again.
    @Test func scriptBotsAreSpreadInTheirOrder() throws {
        let a = try ChatServerProcess(), b = try ChatServerProcess()
        defer {
            a.stop()
            b.stop()
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-\(UUID().uuidString.prefix(8)).bot").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
            bot alice {
                say hello from the first
            }
            bot bob {
                say hello from the second
            }
            bot carol {
                say hello from the first again
            }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try ChildProcess(BuildPaths.product("chat-bot"),
                                   ["script", path, "--server", "localhost:\(a.port)", "--server", "localhost:\(b.port)", "--ca", TestCertificates.ca])
            .finish(timeout: 30)
        #expect(run.status == 0, "\(run.errors)")
        #expect(Self.hellos(a).count == 2 && Self.hellos(a).contains { $0.contains(" nick=alice ") } && Self.hellos(a).contains { $0.contains(" nick=carol ") })
        #expect(Self.hellos(b).count == 1 && Self.hellos(b).contains { $0.contains(" nick=bob ") })
    }

    /// `--server` takes HOST:PORT only (chat-bot finds nothing on the local network), not with
    /// --host or --port, and `flood` takes one server (--host and --port).
    @Test func serverFlagsAreChecked() throws {
        for (arguments, words) in [
            (["load", "--server", "team chat"], "--server takes HOST:PORT"),
            (["load", "--server", "localhost:1", "--port", "2"], "not with --host or --port"),
            (["script", "-", "--server", "::1:4433"], "an IPv6 address goes in brackets"),
            (["flood", "--server", "localhost:1"], "unknown option --server"),
        ] {
            let run = try ChildProcess(BuildPaths.product("chat-bot"), arguments).finish(timeout: 10)
            #expect(run.status == 2 && run.errors.contains(words), "\(arguments): \(run.errors)")
        }
    }
}
