import ChatProtocol
import QuicEngine

/// What the glue keeps per QUIC connection: the two stream decoders and the bytes waiting for
/// room in each stream's QUIC send buffer.
final class ClientLink {
    struct Waiting {
        let bytes: OutboundBytes
        let live: Bool
    }

    static let chatStream: QuicStreamID = 0
    static let presenceStream: QuicStreamID = 4

    let connection: QuicConnection
    var chatDecoder = ChatStreamDecoder()
    var presenceDecoder = ChatStreamDecoder()
    var hasPresenceStream = false
    var helloReported = false
    /// The server closed it (the core already forgot it): its `closed` event is not a departure.
    var closedByServer = false
    var waiting: [QuicStreamID: FIFO] = [:]
    /// Live bytes waiting in `waiting`, the slow-consumer measure.
    var waitingLiveBytes = 0
    /// Replay, history and presence-backlog bytes waiting in `waiting`, bounded by `--replay-limit`.
    var waitingBacklogBytes = 0
    /// Open file streams (8, 12, …), at most the four the stream credit allows.
    var fileStreams: [QuicStreamID: FileStreamLink] = [:]

    init(connection: QuicConnection) { self.connection = connection }

    /// Bytes that could not be queued on a stream yet, in order.
    struct FIFO {
        private var items: [Waiting] = []
        private var head = 0
        var isEmpty: Bool { head == items.count }
        var first: Waiting? { isEmpty ? nil : items[head] }
        mutating func append(_ item: Waiting) { items.append(item) }
        mutating func removeFirst() {
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
        }
    }
}
