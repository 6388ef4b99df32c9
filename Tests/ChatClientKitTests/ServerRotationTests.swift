import ChatProtocol
import QuicEngine
import Testing

@testable import ChatClientKit

/// How every client (chat-client, chat-bot's bots) picks the server after a lost connection, how
/// long it waits, and which closes it comes back from (PROTOCOL.md sections 6 and 10).
struct ServerRotationTests {
    static let servers = (1...3).map { ServerAddress(host: "127.0.0.1", port: UInt16(4432 + $0), address: SocketAddress(host: "127.0.0.1", port: UInt16(4432 + $0))!) }

    /// Bot N starts on server N mod count; each move goes to the next, wrapping; one server is its own next.
    @Test func nextServerRoundRobin() {
        var rotation = ServerRotation(servers: Self.servers, startingAt: 4)
        var visited = [rotation.current.port]
        for _ in 0..<3 {
            rotation.advance()
            visited.append(rotation.current.port)
        }
        #expect(visited == [4434, 4435, 4433, 4434])
        var alone = ServerRotation(servers: [Self.servers[0]])
        let moved = alone.advance()
        #expect(moved && alone.current == Self.servers[0])
    }

    /// A server left out is never chosen again; with every one left out there is none.
    @Test func leftOutServersAreSkipped() {
        var rotation = ServerRotation(servers: Self.servers)
        let first = rotation.leaveOut()
        #expect(first && rotation.current.port == 4434)
        rotation.advance()
        rotation.advance()
        #expect(rotation.current.port == 4434 && rotation.leftOutCount == 1)
        let second = rotation.leaveOut()
        #expect(second && rotation.current.port == 4435)
        let last = rotation.leaveOut()
        #expect(!last)
    }

    /// The wait before attempt N is 0.5 s doubling to 10 s, times 0.5-1.5; a welcome starts it again.
    @Test func backoffDoublesWithJitterAndRestartsAtWelcome() {
        var random = SystemRandomNumberGenerator()
        var rotation = ServerRotation(servers: Self.servers)
        let bases: [UInt64] = [500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]
        for base in bases {
            let wait = rotation.backoff(using: &random).nanoseconds / 1_000_000
            #expect(wait >= base / 2 && wait <= base * 3 / 2, "attempt \(rotation.attempt): \(wait) ms")
        }
        #expect(rotation.attempt == bases.count)
        rotation.connected()
        let first = rotation.backoff(using: &random).nanoseconds / 1_000_000
        #expect(rotation.attempt == 1 && first >= 250 && first <= 750)
    }

    /// A server or path that went away is transient; the server's verdict on the client is not.
    @Test func closesAreClassified() {
        func application(_ code: CloseCode, byPeer: Bool = true) -> ConnectionLoss {
            ConnectionLoss(QuicCloseReason(kind: .application(code: code.rawValue), reason: "", byPeer: byPeer))
        }
        #expect(application(.shutdown) == .transient)
        #expect([CloseCode.kicked, .replaced, .banned].map { application($0) } == [.removed, .removed, .removed])
        #expect([CloseCode.protocolError, .flooding, .slowConsumer].map { application($0) } == [.misbehaviour, .misbehaviour, .misbehaviour])
        for kind in [QuicCloseReason.Kind.idleTimeout, .statelessReset, .handshakeTimeout, .dropped, .transport(code: 0x2)] {
            #expect(ConnectionLoss(QuicCloseReason(kind: kind, reason: "", byPeer: kind == .statelessReset)) == .transient, "\(kind)")
        }
        #expect(ConnectionLoss(QuicCloseReason(kind: .tlsFailure(alert: 42), reason: "", byPeer: false)) == .untrusted)
        #expect(ConnectionLoss(QuicCloseReason(kind: .transport(code: 0x12a), reason: "", byPeer: true)) == .untrusted)
    }

    /// An ack's seq does not count as seen (a node may acknowledge before it delivered the events
    /// just before); a room event's does.
    @Test func onlyRoomEventsMoveSince() {
        #expect(ChatMessage.ack(id: "1", room: "lobby", seq: 9, ts: 0).resumeSeq == nil)
        var event = ChatMessage.msg(room: "lobby", text: "hi", id: "2")
        event.seq = 8
        #expect(event.resumeSeq == 8)
    }
}
