import ChatProtocol
import QuicIO
import TestSupport

@testable import ChatClientKit

/// A qchat server that lies, on real QUIC over loopback with a certificate the client trusts,
/// on the test's own event loop: it answers the hello with a `welcome` and whatever the test
/// says, and answers a download with a header and a body of the test's choosing (more bytes
/// than announced, a name no honest server would relay). For the client's defences against a
/// malicious server (issue 24, defect 18); the real chat-server never does any of it.
final class HostileServer {
    let loop: EventLoop
    let driver: QuicDriver
    let address: SocketAddress
    /// What follows the `welcome` on the chat stream.
    var afterWelcome: [ChatMessage] = []
    /// The answer to a download: a header line, then `body` bytes, then FIN.
    var downloadHeader: ChatMessage?
    var downloadBody = 0
    /// Body bytes the client accepted on the stream (it stops reading, or resets, when it refuses).
    private(set) var bodyQueued = 0

    private var decoders: [UInt64: ChatStreamDecoder] = [:]
    private var pumping: [(connection: QuicConnection, stream: QuicStreamID, left: Int)] = []

    init(loop: EventLoop) throws {
        self.loop = loop
        let tls = QuicTLSConfiguration(certificateChainPath: TestCertificates.serverCertificate, privateKeyPath: TestCertificates.serverKey,
                                       alpn: ["qchat/1"])
        driver = QuicDriver(loop: loop, endpoint: try QuicEndpoint(server: QuicServerConfiguration(connection: QuicConfiguration(tls: tls)),
                                                                   now: .now()))
        address = try driver.bind(SocketAddress(host: "127.0.0.1", port: 0)!)
        driver.onEvent = { [unowned self] connection, event in handle(event, on: connection) }
    }

    /// The client's configuration for this server.
    static var clientConfiguration: QuicConfiguration {
        QuicConfiguration(tls: QuicTLSConfiguration(trustedCAPath: TestCertificates.ca, serverName: "localhost", alpn: ["qchat/1"]))
    }

    private func handle(_ event: QuicEvent, on connection: QuicConnection) {
        switch event {
        case .streamOpened(let stream) where stream >= 8:
            connection.markBulk(stream)
        case .streamData(let stream, let bytes, let fin):
            let key = connection.id << 8 | UInt64(stream)
            var decoder = decoders[key] ?? ChatStreamDecoder()
            var events = decoder.feed(bytes)
            if fin { events += decoder.finish() }
            decoders[key] = decoder
            if stream >= 8 { connection.releaseReceiveCredit(stream, count: bytes.count) }
            for case .message(let message) in events { received(message, on: stream, connection) }
        case .streamWritable(let stream):
            pump(connection, stream)
        default:
            break
        }
    }

    private func received(_ message: ChatMessage, on stream: QuicStreamID, _ connection: QuicConnection) {
        switch message.messageType {
        case .join where stream == 0:
            let welcome = ChatMessage(type: "welcome", text: "hostile", sender: message.sender, peer: message.peer)
            let joined = ChatMessage(type: "joined", sender: message.sender, room: message.roomOrDefault, seq: 1, ts: 1)
            for answer in [welcome, joined] + afterWelcome { _ = try? connection.write(answer.encodedLine(), to: stream) }
        case .download where stream >= 8:
            guard let downloadHeader else { return }
            _ = try? connection.write(downloadHeader.encodedLine(), to: stream)
            pumping.append((connection, stream, downloadBody))
            pump(connection, stream)
        default:
            break
        }
    }

    /// Writes the body as fast as the stream takes it.
    private func pump(_ connection: QuicConnection, _ stream: QuicStreamID) {
        guard let index = pumping.firstIndex(where: { $0.connection === connection && $0.stream == stream }) else { return }
        let chunk = [UInt8](repeating: 0x41, count: 64 << 10)
        while pumping[index].left > 0 {
            let count = min(chunk.count, pumping[index].left)
            guard let accepted = try? connection.write(Array(chunk[..<count]), to: stream, fin: count == pumping[index].left) else {
                pumping.remove(at: index)
                return
            }
            pumping[index].left -= accepted
            bodyQueued += accepted
            if accepted < count { return }
        }
        pumping.remove(at: index)
    }
}
