import RuntimeCore

/// What one stream has queued to send, kept until the peer acknowledges it.
///
/// Offsets are stream offsets. Bytes in [ackedOffset, sentOffset) are in flight and may be
/// retransmitted by ngtcp2 from our memory; bytes in [sentOffset, queuedOffset) are not yet sent.
final class StreamState {
    struct Chunk {
        let bytes: OutboundBytes
        let start: Int
        let end: Int
        var count: Int { end - start }
    }

    let id: QuicStreamID
    private(set) var chunks = FIFOQueue<Chunk>()
    /// Stream offset of the first byte of `chunks[0]`.
    private var firstChunkOffset: UInt64 = 0
    private(set) var ackedOffset: UInt64 = 0
    private(set) var sentOffset: UInt64 = 0
    private(set) var queuedOffset: UInt64 = 0
    /// Index into `chunks` of the chunk that holds `sentOffset`, and the offset within it.
    private var sendIndex = 0
    private var sendIndexOffset = 0

    var finQueued = false
    var finSent = false
    var writeClosed = false
    var wantsWritable = false
    var inSendQueue = false
    /// A bulk stream (a file transfer): its data goes out only when no interactive stream has any
    /// to send, and the bytes it delivers open the peer's window on it only when the application
    /// says it has consumed them (``QuicConnection/markBulk(_:)``).
    var isBulk = false
    /// ngtcp2's count of this stream's lost packets when one side last finished: ngtcp2 forgets
    /// it when the stream closes, before telling us.
    var lostPackets = 0

    init(id: QuicStreamID) { self.id = id }

    var buffered: Int { Int(queuedOffset - ackedOffset) }
    var hasUnsentData: Bool { sentOffset < queuedOffset || (finQueued && !finSent) }

    func enqueue(_ bytes: OutboundBytes, start: Int, end: Int) {
        guard end > start else { return }
        chunks.append(Chunk(bytes: bytes, start: start, end: end))
        queuedOffset += UInt64(end - start)
    }

    /// Calls `body` with up to `limit` (pointer, length) pieces of unsent data, in order, and
    /// returns whether those pieces are all the unsent data (only then may FIN go with them).
    @discardableResult
    func forEachUnsentPiece(limit: Int, _ body: (UnsafeMutableRawPointer, Int) -> Void) -> Bool {
        var index = sendIndex
        var offset = sendIndexOffset
        var emitted = 0
        while index < chunks.count && emitted < limit {
            let chunk = chunks[index]
            let length = chunk.count - offset
            if length > 0 {
                body(chunk.bytes.base + chunk.start + offset, length)
                emitted += 1
            }
            index += 1
            offset = 0
        }
        return index >= chunks.count
    }

    /// Records that ngtcp2 took `count` more bytes from the front of the unsent data.
    func markSent(_ count: Int) {
        var remaining = count
        sentOffset += UInt64(count)
        while remaining > 0 && sendIndex < chunks.count {
            let available = chunks[sendIndex].count - sendIndexOffset
            if remaining >= available {
                remaining -= available
                sendIndex += 1
                sendIndexOffset = 0
            } else {
                sendIndexOffset += remaining
                remaining = 0
            }
        }
    }

    /// Frees chunks whose bytes the peer has acknowledged (ngtcp2 reports a contiguous prefix).
    func acknowledge(upTo offset: UInt64) {
        guard offset > ackedOffset else { return }
        ackedOffset = min(offset, sentOffset)
        while let first = chunks.first, firstChunkOffset + UInt64(first.count) <= ackedOffset, sendIndex > 0 {
            firstChunkOffset += UInt64(first.count)
            _ = chunks.popFirst()
            sendIndex -= 1
        }
    }

    /// Drops everything queued (the stream was reset or closed).
    func discardAll() {
        chunks.removeAll()
        firstChunkOffset = queuedOffset
        ackedOffset = queuedOffset
        sentOffset = queuedOffset
        sendIndex = 0
        sendIndexOffset = 0
    }
}
