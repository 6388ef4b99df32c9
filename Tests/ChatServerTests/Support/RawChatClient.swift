import Digest
import TestSupport
import ChatProtocol
import QuicEngine

/// A bare client on the engine for what ``ChatSession`` does not do: it opens streams only when
/// told, writes raw bytes to any of them (a legacy `chat` client, data on stream 4 before stream
/// 0, a third stream) and records what arrives per stream, stream resets and the close.
/// Lives on the loop thread of its ``ChatTestWorld``.
final class RawChatClient {
    struct Reset: Sendable, Equatable {
        let stream: QuicStreamID
        let code: UInt64
    }

    let connection: QuicConnection
    private(set) var isConnected = false
    /// Decoded messages in arrival order, with the stream they came on.
    private(set) var received: [(stream: QuicStreamID, message: ChatMessage)] = []
    /// Every byte the server sent, per stream.
    private(set) var bytes: [QuicStreamID: [UInt8]] = [:]
    private(set) var datagrams: [ChatMessage] = []
    private(set) var resets: [Reset] = []
    private(set) var problems: [String] = []
    private(set) var closeReason: QuicCloseReason?
    /// With `hashesFileBodies`, file streams keep only their header line in `bytes`: what follows
    /// it is counted and hashed (a 200 MiB download is never whole in memory).
    var hashesFileBodies = false
    private(set) var bodyHashes: [QuicStreamID: SHA256] = [:]
    private(set) var bodyCounts: [QuicStreamID: Int] = [:]
    /// Streams the server has finished (FIN received).
    private(set) var finished: Set<QuicStreamID> = []
    /// Called when a stream's send buffer has room again (file bodies are written in pieces).
    var onWritable: (RawChatClient, QuicStreamID) -> Void = { _, _ in }
    /// Called once the handshake is done; nothing has been sent yet.
    var onConnected: (RawChatClient) -> Void = { _ in }
    private var decoders: [QuicStreamID: ChatStreamDecoder] = [:]
    /// Messages received per stream and type, so conditions over tens of thousands stay cheap.
    private var counts: [QuicStreamID: [String: Int]] = [:]

    init(connection: QuicConnection) { self.connection = connection }

    func handle(_ event: QuicEvent) {
        switch event {
        case .handshakeCompleted:
            isConnected = true
            onConnected(self)
        case .streamData(let stream, let data, let fin):
            // A file stream's credit comes back once its bytes are taken, here at once.
            if connection.isBulk(stream) { connection.releaseReceiveCredit(stream, count: data.count) }
            // Streams 8, 12, … are file streams (PROTOCOL.md section 9); the engine may have
            // forgotten the stream by the time its last bytes are handled.
            if hashesFileBodies && stream >= 8 {
                hashFileData(data, on: stream)
                if fin { finished.insert(stream) }
                return
            }
            bytes[stream, default: []] += data
            if fin { finished.insert(stream) }
            var decoder = decoders[stream] ?? ChatStreamDecoder()
            var events = decoder.feed(data)
            if fin { events += decoder.finish() }
            decoders[stream] = decoder
            for decoded in events {
                switch decoded {
                case .message(let message):
                    received.append((stream, message))
                    counts[stream, default: [:]][message.type, default: 0] += 1
                case .malformed(let error, _): problems.append("malformed message on stream \(stream): \(error)")
                case .fatal(let error): problems.append("framing error on stream \(stream): \(error)")
                }
            }
        case .streamReset(let stream, let code):
            resets.append(Reset(stream: stream, code: code))
        case .datagram(let data):
            if let message = try? ChatMessage.decode(data) { datagrams.append(message) }
        case .closed(let reason):
            closeReason = reason
        case .streamWritable(let stream):
            onWritable(self, stream)
        default:
            break
        }
    }

    private func hashFileData(_ data: [UInt8], on stream: QuicStreamID) {
        var body = data[...]
        if bodyHashes[stream] == nil {
            let held = bytes[stream, default: []]
            guard let newline = data.firstIndex(of: 10) else {
                bytes[stream] = held + data
                return
            }
            bytes[stream] = held + data[...newline]
            bodyHashes[stream] = SHA256()
            body = data[(newline + 1)...]
        }
        body.withUnsafeBytes { bodyHashes[stream]?.update($0) }
        bodyCounts[stream, default: 0] += body.count
    }

    /// Opens the next client bidirectional stream (0, 4, 8, ...).
    func openStream() throws -> QuicStreamID { try connection.openStream() }

    /// Writes text as is (no LF added).
    func write(_ text: String, to stream: QuicStreamID) { write(Array(text.utf8), to: stream) }

    func write(_ data: [UInt8], to stream: QuicStreamID) { _ = try? connection.write(data, to: stream) }

    func messages(on stream: QuicStreamID, type: String? = nil) -> [ChatMessage] {
        received.filter { $0.stream == stream && (type == nil || $0.message.type == type) }.map(\.message)
    }

    /// How many messages of `type` arrived on `stream`, in O(1).
    func count(type: String, on stream: QuicStreamID = 0) -> Int { counts[stream]?[type] ?? 0 }

    func has(type: String, on stream: QuicStreamID = 0, where predicate: (ChatMessage) -> Bool = { _ in true }) -> Bool {
        messages(on: stream, type: type).contains(where: predicate)
    }
}
