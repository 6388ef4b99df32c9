import Foundation
import TestSupport
import Testing

/// A user's home for chat-client in a test: its own `XDG_CONFIG_HOME` and `XDG_STATE_HOME`
/// (configuration file, private-message store, logs), so no test reads or writes the developer's
/// files or another test's. Starts the client full screen (a tmux command) or in line mode.
struct ClientHome {
    let path: String
    var configDirectory: String { path + "/config" }
    var stateDirectory: String { path + "/state" }
    /// The client's time zone (`TZ`), when a test is about local days.
    var timeZone: String?
    var environment: [String: String] {
        ["XDG_CONFIG_HOME": configDirectory, "XDG_STATE_HOME": stateDirectory].merging(timeZone.map { ["TZ": $0] } ?? [:]) { $1 }
    }

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-home-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: configDirectory + "/qchat", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
    }

    /// Writes `$XDG_CONFIG_HOME/qchat/client.conf`.
    func writeConfiguration(_ text: String) throws {
        try text.write(toFile: configDirectory + "/qchat/client.conf", atomically: true, encoding: .utf8)
    }

    /// The arguments every test client gets: the test CA (unless the test is about finding one)
    /// and the server's name in its certificate.
    static func arguments(port: UInt16?, nick: String?, ca: Bool = true) -> [String] {
        (port.map { ["--port", "\($0)"] } ?? []) + (ca ? ["--ca", TestCertificates.ca] : []) + ["--host", "localhost"]
            + (nick.map { ["--nick", $0] } ?? [])
    }

    /// The shell words that start the client in this home.
    func invocation(port: UInt16?, nick: String?, ca: Bool = true, _ extra: [String] = []) -> String {
        let environment = self.environment.map { "\($0.key)=\(shellQuoted($0.value))" }.sorted().joined(separator: " ")
        let arguments = (Self.arguments(port: port, nick: nick, ca: ca) + extra).map(shellQuoted).joined(separator: " ")
        return "env \(environment) \(BuildPaths.product("chat-client")) \(arguments)"
    }

    /// A shell command for tmux: the full-screen client, then `EXITED <status>` once it ends.
    func fullScreenCommand(port: UInt16?, nick: String?, ca: Bool = true, _ extra: [String] = []) -> String {
        invocation(port: port, nick: nick, ca: ca, extra) + "; echo EXITED $?; sleep 60"
    }

    /// The client in line mode (`--plain`), its stdin a pipe the test writes to, or a file.
    func lineClient(port: UInt16, nick: String, _ extra: [String] = [], standardInput: String? = nil) throws -> ChildProcess {
        try ChildProcess(BuildPaths.product("chat-client"), Self.arguments(port: port, nick: nick) + ["--plain"] + extra,
                         environment: environment, standardInput: standardInput)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs a chat-bot script (the text of a `.bot` file) against the server on `port`.
func runBotScript(_ script: String, port: UInt16) throws -> ChildProcess {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-\(UUID().uuidString.prefix(8)).bot").path
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    return try ChildProcess(BuildPaths.product("chat-bot"), ["script", path, "--port", String(port), "--ca", TestCertificates.ca])
}

/// Runs SQL on a server's history database (written by hand: what the server replays as it stands).
func runSQLite(_ database: String, _ sql: String) throws {
    let sqlite = try ChildProcess("/usr/bin/sqlite3", [database])
    sqlite.write(sql)
    sqlite.closeInput()
    let finished = sqlite.finish(timeout: 20)
    #expect(finished.status == 0, "\(finished.errors)")
}

func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// A line-mode event without the timestamp line mode puts first (`12:34:56 `).
func untimed(_ line: String) -> String {
    let characters = Array(line)
    guard characters.count >= 9, characters[8] == " ", characters[2] == ":", characters[5] == ":",
          characters[0..<8].allSatisfy({ $0 == ":" || $0.isNumber }) else { return line }
    return String(characters[9...])
}

extension ChildProcess {
    /// Waits for the line-mode event `text` exactly, whatever its timestamp.
    func waitForEvent(_ text: String, timeout: TimeInterval = 10) -> Bool {
        waitForLine(timeout: timeout) { untimed($0) == text } != nil
    }
}

/// The member list the full-screen client shows at the right of its message pane: the nicks under
/// ` Members (N)`, `~` (away) removed. Nil when there is no member list on the screen.
func memberList(_ screen: [String], columns: Int) -> [String]? {
    let memberWidth = min(24, max(12, columns / 5))
    let start = columns - memberWidth
    let column: (String) -> String = { row in
        let characters = Array(row)
        guard characters.count > start else { return "" }
        return String(characters[start...]).trimmingCharacters(in: .whitespaces)
    }
    guard let header = screen.firstIndex(where: { column($0).hasPrefix("Members (") }) else { return nil }
    var nicks: [String] = []
    for row in screen[(header + 1)...] {
        let entry = column(row)
        guard !entry.isEmpty, !entry.hasPrefix("+") else { break }
        nicks.append(entry.hasPrefix("~") ? String(entry.dropFirst()) : entry)
    }
    return nicks
}

extension TmuxSession {
    /// The input line's prompt, e.g. `[lobby]`.
    func prompt() -> String? {
        guard let row = screen().last(where: { !$0.isEmpty }), row.hasPrefix("["), let end = row.firstIndex(of: "]") else { return nil }
        return String(row[...end])
    }
}
