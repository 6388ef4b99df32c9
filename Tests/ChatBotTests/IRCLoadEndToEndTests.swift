import Foundation
import TestSupport
import Testing

/// `chat-bot irc-load` against a real InspIRCd, configured by scripts/inspircd-config.sh as
/// `make bench-irc` runs it. `make test` does not install InspIRCd (the benchmark does), so
/// without it the test is skipped, saying so.
@Suite("chat-bot irc-load end to end", .serialized)
struct IRCLoadEndToEndTests {
    static let inspircd = "/usr/sbin/inspircd"
    static let installed = FileManager.default.isExecutableFile(atPath: inspircd)

    /// InspIRCd on a free port with the test certificates, its files in a temporary folder.
    private static func startInspIRCd(in folder: String) throws -> (ChildProcess, UInt16) {
        let port = try FreePort.tcp()
        let config = try ChildProcess("/bin/bash", [
            BuildPaths.repository.appendingPathComponent("scripts/inspircd-config.sh").path, folder, String(port),
            TestCertificates.serverCertificate, TestCertificates.serverKey,
        ])
        #expect(config.finish(timeout: 10).status == 0)
        let server = try ChildProcess(inspircd, ["--nofork", "--config=\(folder)/inspircd.conf"] + (getuid() == 0 ? ["--runasroot"] : []))
        guard server.waitForLine(timeout: 20, where: { $0.contains("InspIRCd is now running") }) != nil else {
            let output = server.finish(timeout: 1)
            throw InspIRCdDidNotStart(output: output.output + output.errors)
        }
        return (server, port)
    }

    struct InspIRCdDidNotStart: Error { let output: String }

    /// Six clients in two channels over TLS, 40 PRIVMSGs in a measured second: every member got
    /// every other member's measured messages once and in order, every message came back to its
    /// sender as its echo (the ack), and the JSON report has chat-bot load's keys.
    @Test(.enabled(if: installed, "inspircd is not installed: make bench-irc installs it, make test does not"))
    func shortIRCLoadLosesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-inspircd-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (server, port) = try Self.startInspIRCd(in: folder)
        // SIGKILL: InspIRCd with GnuTLS may crash on SIGTERM, and nothing is left to check then.
        defer {
            server.signal(SIGKILL)
            _ = server.finish(timeout: 5)
        }
        let bot = try BotRun.run("irc-load", port: port, [
            "--clients", "6", "--rooms", "2", "--rate", "40", "--size", "200", "--duration", "1", "--warmup", "0.5",
            "--drain", "3", "--connect-parallel", "6", "--connect-timeout", "20",
        ], timeout: 30)
        #expect(bot.status == 0, "\(bot.text)")
        #expect(bot.report["ok"] as? Bool == true)
        #expect(bot.section("connect")["joined"] as? Int == 6)
        let messages = bot.section("messages")
        #expect(messages["sent_measured"] as? Int == 40)
        #expect(messages["acknowledged"] as? Int == messages["sent"] as? Int, "every PRIVMSG echoed to its sender")
        #expect(messages["unacknowledged_measured"] as? Int == 0)
        // Three members a channel: each message reaches the two others.
        #expect(bot.deliveries["expected"] as? Int == 80, "\(bot.summary)")
        #expect(bot.lostNothing, "\(bot.summary)")
        let latency = bot.latency
        #expect((latency["p50"] ?? 0) > 0 && (latency["p99"] ?? 0) >= (latency["p50"] ?? 0), "\(latency)")
        #expect(bot.text.contains("TLS (TLS1.3)"), "the negotiated TLS is printed: \(bot.text)")
    }
}
