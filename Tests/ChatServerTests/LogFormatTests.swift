@testable import ChatServer
import ChatClientKit
import ChatProtocol
import ChatServerCore
import Foundation
import Glibc
import TestSupport
import Testing

/// `--log-format text|json`: one event a line on stderr, each with its level, and no message
/// text or password at info, whatever people write.
@Suite("chat-server logs")
struct LogFormatTests {
    private static let secrets = ["SECRET-ROOM-TEXT-7731", "SECRET-DM-TEXT-4410", "SECRET-TYPO-ID-0001", "SECRET-PASSWORD-9911",
                                  "SECRET-WRONG-PASSWORD-5522"]

    /// A conversation of room messages, a private message, a bad request, a registration with a password, a login with a wrong one and a kick, against a server logging at info in `format`; its stderr when it stopped.
    private func converse(format: String) async throws -> [String] {
        let process = try ChildProcess(BuildPaths.product("chat-server"),
                                       ["--port", "0", "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey,
                                        "--log-level", "info", "--log-format", format])
        let listening = try #require(process.waitForLine(timeout: 20) { $0.contains("listening") })
        let address = try #require(listening.firstMatch(of: /address[=":]+127\.0\.0\.1:(\d+)/))
        let port = try #require(UInt16(address.1))
        try await onDedicatedThread {
            let world = try ChatTestWorld(port: port)
            let alice = try world.connectAndJoin("alice")
            let bob = try world.connectAndJoin("bob")
            alice.send(.msg(room: "lobby", text: Self.secrets[0], id: "m-1"))
            alice.send(.dm(to: "bob", text: Self.secrets[1], id: "d-1"))
            alice.send(.msg(room: "no room here", text: Self.secrets[2], id: "m-2"))
            world.run { world.has(bob, type: "msg") && world.has(bob, type: "dm") && world.has(alice, type: "error") }
            alice.send(.register(password: Self.secrets[3]))
            world.run { world.has(alice, type: "account") }
            bob.send(.login(account: "alice", password: Self.secrets[4]))
            world.run { world.count(bob, type: "error") > 0 }
            process.write("kick bob spamming\n")
            world.run { world.closeCode(bob) != nil }
        }
        process.signal(SIGTERM)
        let finished = process.finish(timeout: 10)
        return finished.errors.split(separator: "\n").map(String.init)
    }

    /// JSON format: every line is one JSON object with time, level and event; none carries a message's text.
    @Test func jsonLinesCarryLevelsAndNoMessageText() async throws {
        let lines = try await converse(format: "json")
        #expect(lines.count > 10)
        var events: Set<String> = []
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            #expect(["info", "warning", "error"].contains(object?["level"] as? String ?? ""), "\(line)")
            #expect((object?["time"] as? String)?.hasSuffix("Z") == true, "\(line)")
            if let event = object?["event"] as? String { events.insert(event) }
            for secret in Self.secrets { #expect(!line.contains(secret), "\(line)") }
        }
        #expect(events.isSuperset(of: ["listening", "hello", "join", "closing", "shutting down"]), "\(events.sorted())")
        #expect(lines.contains { $0.contains("register") || $0.contains("account") }, "the registration left no trace")
    }

    /// Text format: `TIME LEVEL event key=value...` a line; none carries a message's text.
    @Test func textLinesCarryLevelsAndNoMessageText() async throws {
        let lines = try await converse(format: "text")
        #expect(lines.count > 10)
        for line in lines {
            #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (info|warning|error) [a-z].*/) != nil, "\(line)")
            for secret in Self.secrets { #expect(!line.contains(secret), "\(line)") }
        }
    }

    /// JSON strings escape quotes, controls and DEL, and a detail cannot pose as the time, level or event; text quotes what needs it.
    @Test func linesAreEscaped() {
        let json = Logger(threshold: .debug, format: .json, journalPriorities: false)
        #expect(json.line(.warning, "closing", ["reason": "a \"quote\"\n\u{1B}[2J\u{7F}", "level": "spoofed"], time: "T")
            == #"{"time":"T","level":"warning","event":"closing","reason":"a \"quote\"\n\u001b[2J\u007f"}"#)
        let text = Logger(threshold: .debug, format: .text, journalPriorities: false)
        #expect(text.line(.info, "join", ["room": "lobby", "nick": "a b"], time: "T") == #"T info join nick="a b" room=lobby"#)
        #expect([LogLevel.error, .warning, .info, .debug].map(Logger.syslogPriority) == [3, 4, 6, 7])
    }

    /// When JOURNAL_STREAM names the stream stderr is (as systemd sets it), every line starts with its syslog priority; naming another stream, none does.
    @Test func journalPrioritiesOnlyWhenStderrIsTheJournal() throws {
        func firstLine(journalStream: String) throws -> String? {
            let server = "'\(BuildPaths.product("chat-server"))' --port 0 --cert '\(TestCertificates.serverCertificate)' --key '\(TestCertificates.serverKey)'"
            let process = try ChildProcess("/bin/sh", ["-c", "JOURNAL_STREAM=\(journalStream) exec \(server)"])
            defer { process.terminate() }
            return process.waitForLine(timeout: 20) { $0.contains("listening") }
        }
        let journal = try firstLine(journalStream: "$(stat -L -c %d:%i /proc/self/fd/2)")
        #expect(journal?.hasPrefix("<6>") == true && journal?.dropFirst(3).first?.isNumber == true, "\(journal ?? "no line")")
        let other = try firstLine(journalStream: "1:1")
        #expect(other?.first?.isNumber == true, "\(other ?? "no line")")
    }
}
