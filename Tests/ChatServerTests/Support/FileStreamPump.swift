import ChatProtocol
import Digest
import QuicEngine

/// Writes file stream bodies for raw clients, a piece at a time as the send buffer drains (a
/// body is larger than the buffer), and ends them with FIN or leaves them open. A body is
/// produced a piece at a time too (``Body``), so a 200 MiB file is never whole in the test.
final class FileStreamPump {
    /// A file's bytes: `block` repeated up to `count` bytes (or given whole).
    struct Body: Sendable {
        let block: [UInt8]
        let count: Int

        init(_ bytes: [UInt8]) {
            block = bytes
            count = bytes.count
        }

        init(repeating block: [UInt8], count: Int) {
            self.block = block
            self.count = count
        }

        /// Bytes `range` of the body.
        func slice(_ range: Range<Int>) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(range.count)
            var position = range.lowerBound
            while position < range.upperBound {
                let inBlock = position % block.count
                let take = min(block.count - inBlock, range.upperBound - position)
                out += block[inBlock..<(inBlock + take)]
                position += take
            }
            return out
        }

        /// The SHA-256 of the whole body.
        var sha256: String {
            let hasher = SHA256()
            var position = 0
            while position < count {
                let end = min(count, position + (1 << 20))
                hasher.update(slice(position..<end))
                position = end
            }
            return hasher.finishHex()
        }
    }

    private struct Progress {
        var header: [UInt8]
        let body: Body
        var offset: Int
        let end: Int
        let fin: Bool
    }

    private var streams: [QuicStreamID: Progress] = [:]

    /// Opens a file stream on `client` and writes `header`, then bytes `from..<to` of `body`
    /// (all of it by default); FIN after them when `fin`.
    @discardableResult
    func send(_ header: ChatMessage, body: Body = Body([]), from start: Int = 0, to end: Int? = nil, fin: Bool = true,
              on client: RawChatClient) throws -> QuicStreamID {
        client.onWritable = { [unowned self] client, stream in push(stream, on: client) }
        let stream = try client.connection.openStream(bulk: true)
        streams[stream] = Progress(header: header.encodedLine(), body: body, offset: start, end: end ?? body.count, fin: fin)
        push(stream, on: client)
        return stream
    }

    @discardableResult
    func send(_ header: ChatMessage, body: [UInt8], fin: Bool = true, on client: RawChatClient) throws -> QuicStreamID {
        try send(header, body: Body(body), fin: fin, on: client)
    }

    /// All of the stream's header and body was taken by the engine.
    func isWritten(_ stream: QuicStreamID) -> Bool { streams[stream] == nil }

    private func push(_ stream: QuicStreamID, on client: RawChatClient) {
        guard var progress = streams[stream] else { return }
        defer { streams[stream] = progress.header.isEmpty && progress.offset == progress.end ? nil : progress }
        if !progress.header.isEmpty {
            let last = progress.offset == progress.end
            guard let accepted = try? client.connection.write(progress.header, to: stream, fin: progress.fin && last) else { return }
            progress.header.removeFirst(accepted)
            guard progress.header.isEmpty else { return }
        }
        while progress.offset < progress.end {
            let end = min(progress.end, progress.offset + (64 << 10))
            let piece = progress.body.slice(progress.offset..<end)
            guard let accepted = try? client.connection.write(piece, to: stream, fin: progress.fin && end == progress.end) else { return }
            progress.offset += accepted
            if accepted < piece.count { return }
        }
    }
}
