import Foundation
import TestSupport
import Testing

/// Issue 11, chat-client as a daily driver: the real binaries (server, full-screen clients under
/// tmux, line-mode clients, bots), one test at a time (the nested suites in the
/// `DailyDriverTests+*.swift` files share this serialisation, so they never load the two cores
/// together).
@Suite("chat-client as a daily driver", .serialized)
struct DailyDriverTests {
    static let columns = 100, rows = 30

    /// A full-screen client in tmux at the suite's size.
    static func fullScreen(_ home: ClientHome, port: UInt16?, nick: String?, ca: Bool = true, _ extra: [String] = [],
                           columns: Int = columns, rows: Int = rows) throws -> TmuxSession {
        try TmuxSession(command: home.fullScreenCommand(port: port, nick: nick, ca: ca, extra), columns: columns, rows: rows)
    }

    /// Types a line and presses Enter.
    static func enter(_ session: TmuxSession, _ line: String) throws {
        try session.type(line)
        try session.press("Enter")
    }
}

extension TmuxSession {
    /// The whole screen as one string, for failure messages.
    var dump: String { screen().joined(separator: "\n") }
}
