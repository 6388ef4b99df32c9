import Foundation
import Glibc
import TestSupport
import Testing

/// Reconnect without loss, end to end: real server with --db, killed and restarted on the same
/// port, real line-mode clients that reconnect by themselves.
@Suite("chat-client reconnect", .serialized)
struct ReconnectTests {
    /// A free UDP port on 127.0.0.1 (the restarted server must come back on the same one).
    static func freePort() -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                bind(descriptor, pointer, length)
                return getsockname(descriptor, pointer, &length)
            }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Messages typed while the server is down (kill -9) are delivered exactly once after it
    /// restarts with the same --db; the other client sees them once and nothing twice.
    @Test func messagesSentDuringOutageArriveOnce() throws {
        let port = Self.freePort()
        let database = temporaryDatabasePath()
        var server = try ChatServerProcess(["--port", "\(port)", "--db", database])
        let bob = try LineModeTests.client(port: port, nick: "bob")
        #expect(bob.waitForLine(timeout: 10) { $0.contains("bob joined") } != nil)
        let alice = try LineModeTests.client(port: port, nick: "alice")
        alice.write("before the crash\n")
        #expect(bob.waitForLine(timeout: 10) { untimed($0) == "#lobby <alice> before the crash" } != nil)

        server.process.signal(SIGKILL)
        _ = server.process.finish(timeout: 5)
        alice.write("during the outage 1\nduring the outage 2\n")
        server = try ChatServerProcess(["--port", "\(port)", "--db", database])
        defer { server.stop() }

        // Bob learns of the restart at his next keep-alive (a stateless reset answers it) and gets
        // what he missed as replay, marked "(history)", or live if alice resends after his re-join.
        #expect(bob.waitForLine(timeout: 30) { untimed($0).hasPrefix("#lobby <alice> during the outage 2") } != nil)
        alice.closeInput()
        #expect(alice.finish(timeout: 30).status == 0)
        bob.closeInput()
        let lines = bob.finish(timeout: 10).output.split(separator: "\n").map(String.init)
        #expect(lines.filter { untimed($0).hasPrefix("#lobby <alice> before the crash") }.count == 1)
        #expect(lines.filter { untimed($0).hasPrefix("#lobby <alice> during the outage 1") }.count == 1)
        #expect(lines.filter { untimed($0).hasPrefix("#lobby <alice> during the outage 2") }.count == 1)
        let first = lines.firstIndex { untimed($0).hasPrefix("#lobby <alice> during the outage 1") } ?? 0
        let second = lines.firstIndex { untimed($0).hasPrefix("#lobby <alice> during the outage 2") } ?? 0
        #expect(first < second)
    }
}
