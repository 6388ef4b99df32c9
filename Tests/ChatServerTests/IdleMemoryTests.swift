import Foundation
import TestSupport
import Testing

/// ngtcp2's larger blocks live on pages of their own (Sources/CQuic/conn_memory.c), so that what
/// an idle connection never writes is never resident, and a closed connection's pages go back to
/// the kernel. Measured in a real chat-server with real clients, through its `stats` command.
@Suite("Connection memory pages")
struct IdleMemoryTests {
    @Test(.standaloneOnly("counts the first node's connections and pages against the whole load, which is spread over the nodes"))
    func idleConnectionsKeepMostOfTheirPagesUnbackedAndGiveThemBackWhenTheyClose() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let clients = 100
        let load = try BotRun("load", port: server.port, ["--clients", "\(clients)", "--rooms", "5", "--rate", "0",
                                                          "--duration", "2", "--warmup", "0"])
        #expect(load.waitForLine(timeout: 60) { $0.contains("measuring") } != nil)
        let busy = server.statistics()
        #expect(busy["clients"] == clients, "\(busy)")
        let held = try #require(busy["ngtcp2_bytes"]), resident = try #require(busy["connection_page_bytes"])
        print("\(clients) idle connections: ngtcp2 holds \(held / clients) bytes each, \(resident / clients) of them on resident pool pages")
        // Each connection's blocks have at least one page written; most of their pages are not.
        #expect(resident >= clients * 4096, "\(busy)")
        #expect(resident < held / 2, "\(busy)")

        load.finish()
        #expect(load.status == 0, "\(load.text)")
        // A closed connection drains (three probe timeouts) before ngtcp2 frees it; nothing is
        // logged then, so the test asks until the endpoint holds none.
        var after = server.statistics()
        let deadline = Date().addingTimeInterval(TestTime.scaled(30))
        while after["connections"] != 0 && Date() < deadline {
            after = server.statistics()
        }
        #expect(after["connections"] == 0, "\(after)")
        // Every closed connection's pool pages were handed back (the pool itself keeps only slots).
        #expect(after["connection_page_bytes"] == 0, "\(after)")
    }
}
