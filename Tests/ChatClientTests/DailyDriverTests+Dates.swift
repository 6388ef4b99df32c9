import Foundation
import TestSupport
import Testing

extension DailyDriverTests.WeechatHabits {
    /// Dates: replayed history of other days says its day (a rule in full screen, a day line in
    /// line mode), a rule or day line where today begins, the day the client's zone says (here
    /// UTC+2, so 22:30 UTC is already the next day); the log's lines carry their date.
    @Test func dates() throws {
        let database = temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(atPath: database) }
        try ChatServerProcess(["--db", database]).stop()
        // 2025-11-28 10:00 UTC (12:00 at UTC+2) and 2025-11-29 22:30 UTC (00:30 on the 30th at UTC+2).
        try runSQLite(database, """
            BEGIN;
            INSERT INTO events (room, seq, ts, kind, sender, text, msg_id) VALUES ('lobby', 1, 1764324000000, 'msg', 'ghost', 'before the weekend', 'd1');
            INSERT INTO events (room, seq, ts, kind, sender, text, msg_id) VALUES ('lobby', 2, 1764455400000, 'msg', 'ghost', 'past midnight', 'd2');
            COMMIT;

            """)
        let server = try ChatServerProcess(["--db", database])
        defer { server.stop() }
        var home = try ClientHome()
        defer { home.remove() }
        home.timeZone = "QQQ-2"
        func today() -> String {
            let format = DateFormatter()
            format.timeZone = TimeZone(secondsFromGMT: 7_200)
            format.dateFormat = "yyyy-MM-dd"
            return format.string(from: Date())
        }

        let dave = try home.lineClient(port: server.port, nick: "dave")
        defer { dave.terminate() }
        #expect(dave.waitForEvent("#lobby * dave joined"), "\(dave.outputLines)")
        let printed = dave.outputLines.map { untimed($0) }
        let expected = ["* day changed to 2025-11-28", "#lobby <ghost> before the weekend (history)", "* day changed to 2025-11-30",
                        "#lobby <ghost> past midnight (history)", "* day changed to \(today())"]
        #expect(Array(printed.prefix(5)) == expected, "\(dave.outputLines)")
        #expect(dave.outputLines.first?.hasPrefix("12:00:00 ") == true, "\(dave.outputLines)")

        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob", ["--logs"])
        #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
        let screen = bob.screen()
        func row(_ text: String) -> Int? { screen.firstIndex { $0.contains(text) } }
        let rows = [row("─ 2025-11-28 ─"), row("12:00 <ghost> before the weekend"), row("─ 2025-11-30 ─"), row("00:30 <ghost> past midnight"),
                    row("─ \(today()) ─"), row("bob joined")]
        #expect(rows.allSatisfy { $0 != nil } && rows.map { $0 ?? 0 } == rows.map { $0 ?? 0 }.sorted(), "\(rows) \(bob.dump)")

        try DailyDriverTests.enter(bob, "words of the day")
        #expect(dave.waitForEvent("#lobby <bob> words of the day"))
        let log = home.stateDirectory + "/qchat/logs/localhost-\(server.port)/lobby-\(today()).log"
        let deadline = Date().addingTimeInterval(TestTime.scaled(10))
        var text = ""
        while Date() < deadline, !text.contains("words of the day") {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            usleep(50_000)
        }
        #expect(text.split(separator: "\n").contains { DailyDriverTests.Habits.matches(String($0), "^\(today()) \\d\\d:\\d\\d:\\d\\d <bob> words of the day$") },
                "\(text)")
    }
}
