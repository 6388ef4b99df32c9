import ChatProtocol
import Digest
import Foundation
import QuicEngine
import TestSupport
import Testing

/// ngtcp2's larger blocks live on pages of their own (Sources/CQuic/conn_memory.c), so that what
/// an idle connection never writes is never resident, and a closed connection's pages go back to
/// the kernel. Measured in a real chat-server with real clients, through its `stats` command.
@Suite("Connection memory pages")
struct IdleMemoryTests {
    @Test(.standaloneOnly("counts the first node's connections and pages against the whole load, which is spread over the nodes"))
    func idleConnectionsKeepMostOfTheirPagesUnbackedAndGiveThemBackWhenTheyClose() throws {
        // The pages as an idle connection keeps them before they are set aside (the next test).
        let server = try ChatServerProcess(["--idle-memory-after", "0"])
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

    /// Idle clients' QUIC state is set aside (`--idle-memory-after`): their pool pages go back
    /// and the server's `stats` counts them; then a burst of chat lines and a 1 MiB file between
    /// the same two clients arrive whole and in order, which brings their pages back.
    @Test func idleClientsGiveTheirPagesBackThenChatAndShareAFile() async throws {
        let problems = try await scenario(server: ["--idle-memory-after", "0.5", "--flood-burst", "100"]) { world, server -> [String] in
            var problems: [String] = []
            let alice = try FileTransferTests.joined(world, "alice")
            let bob = try FileTransferTests.joined(world, "bob")
            var idle = server.statistics()
            let deadline = Date().addingTimeInterval(TestTime.scaled(30))
            while (idle["idle_memory_set_asides"] ?? 0) < 2 || idle["connection_page_bytes"] != 0, Date() < deadline {
                // The clients keep running meanwhile: they acknowledge what the server sent last.
                _ = world.run(seconds: 0.2) { false }
                idle = server.statistics()
            }
            if idle["idle_memory_set_asides"] ?? 0 < 2 || idle["connection_page_bytes"] != 0 { return ["not set aside: \(idle)"] }

            let lines = (0..<50).map { "line \($0) after the pause" }
            for (index, line) in lines.enumerated() { alice.write(ChatMessage.msg(room: "lobby", text: line, id: "m\(index)").encodedLine(), to: 0) }
            _ = world.run(seconds: 30) { bob.messages(on: 0, type: "msg").count >= lines.count }
            let received = bob.messages(on: 0, type: "msg").compactMap(\.text)
            if received != lines { return ["bob got \(received.count) lines: \(received.prefix(3)); \(idle); then \(server.statistics())"] }
            let body = FileTransferTests.bytes(1 << 20, seed: 25)
            let shared = try FileTransferTests.shareAndFetch(FileStreamPump.Body(body), world: world, between: (alice, bob))
            problems += shared.problems
            if SHA256.hex(of: shared.downloaded) != SHA256.hex(of: body) { problems.append("the file came back as \(shared.downloaded.count) other bytes") }
            if (server.statistics()["idle_memory_restores"] ?? 0) < 2 { problems.append("no restores counted") }
            return problems
        }
        #expect(problems.isEmpty, "\(problems)")
    }
}
