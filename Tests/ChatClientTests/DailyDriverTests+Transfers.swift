import Foundation
import TestSupport
import Testing

extension DailyDriverTests.WeechatHabits {
    /// `/transfers` lists what was sent and fetched in this run, in full screen and line mode.
    @Test func transfersAreListed() throws {
        let folder = try LineModeFileTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(repeating: 7, count: 3000).write(to: URL(fileURLWithPath: folder + "/small.bin"))
        let server = try ChatServerProcess()
        defer { server.stop() }
        let home = try ClientHome()
        defer { home.remove() }
        let dave = try home.lineClient(port: server.port, nick: "dave")
        defer { dave.terminate() }
        #expect(dave.waitForEvent("#lobby * dave joined"))
        let bob = try DailyDriverTests.fullScreen(home, port: server.port, nick: "bob")
        #expect(bob.waitFor { $0.joined().contains("bob joined") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/send \(folder)/small.bin")
        #expect(bob.waitFor { $0.joined().contains("[transfer 1] sent small.bin") }, "\(bob.dump)")
        try DailyDriverTests.enter(bob, "/transfers")
        #expect(bob.waitFor { screen in screen.contains { $0.contains("transfer 1 ↑ small.bin (2.9 KiB) to #lobby: sent") } }, "\(bob.dump)")

        #expect(dave.waitForLine(timeout: 10) { $0.contains("bob shared small.bin") } != nil, "\(dave.outputLines)")
        dave.write("/get 1 \(folder)/in\n")
        #expect(dave.waitForLine(timeout: 20) { $0.contains("saved") } != nil, "\(dave.errorOutput)")
        dave.write("/transfers\n")
        #expect(dave.waitForLine(timeout: 10) { $0.hasSuffix("transfer 1 ↓ small.bin (2.9 KiB): saved \(folder)/in/small.bin") } != nil,
                "\(dave.outputLines)")
    }
}
