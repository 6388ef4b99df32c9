import Foundation
import TestSupport
import Testing

/// A client whose address changes (NAT rebinding through udp-impair) keeps its session: QUIC
/// migration, no reconnect, nothing lost.
@Suite("chat-client across NAT rebinding", .serialized)
struct MigrationTests {
    /// The proxy gives alice a new source port, then a new source address, mid-conversation:
    /// every message still arrives once and alice never reconnects.
    @Test func rebindingKeepsTheSession() throws {
        let server = try ChatServerProcess()
        defer { server.stop() }
        let proxy = try ChildProcess(BuildPaths.product("udp-impair"),
                                     ["--server", "127.0.0.1:\(server.port)", "--exit-on-stdin-close"])
        defer { proxy.terminate() }
        let ready = try #require(proxy.waitForLine(prefix: "READY", timeout: 10))
        let proxyPort = try #require(UInt16(ready.split(separator: " ")[1]))
        let bob = try LineModeTests.client(port: server.port, nick: "bob")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("bob joined") } != nil)
        let alice = try LineModeTests.client(port: proxyPort, nick: "alice")
        alice.write("one\n")
        #expect(bob.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> one" } != nil)
        proxy.write("rebind\n")
        #expect(proxy.waitForLine(timeout: 5) { $0.hasPrefix("OK") } != nil)
        alice.write("two\n")
        #expect(bob.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> two" } != nil)
        proxy.write("rebind-address\n")
        alice.write("three\n")
        #expect(bob.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> three" } != nil)
        #expect(server.process.waitForLine(timeout: 10) { $0.contains("client moved") } != nil)
        alice.closeInput()
        let result = alice.finish(timeout: 20)
        #expect(result.status == 0)
        #expect(!result.errors.contains("reconnecting"))
        bob.closeInput()
        let lines = bob.finish(timeout: 10).output.split(separator: "\n")
        for text in ["one", "two", "three"] {
            #expect(lines.filter { untimed(String($0)) == "#lobby <alice> \(text)" }.count == 1)
        }
    }
}
