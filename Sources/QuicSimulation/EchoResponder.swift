import QuicEngine

/// The reference echo peer: stream bytes come back on the same stream (FIN after the peer's
/// FIN), datagrams come back unchanged. What a stream cannot take yet waits for `streamWritable`.
public final class EchoResponder {
    private struct Key: Hashable {
        let connection: UInt64
        let stream: QuicStreamID
    }

    private var pending: [Key: (bytes: [UInt8], fin: Bool)] = [:]

    public init() {}

    public func handle(_ event: QuicEvent, on connection: QuicConnection) {
        switch event {
        case .streamData(let stream, let bytes, let fin):
            let key = Key(connection: connection.id, stream: stream)
            var entry = pending[key] ?? ([], false)
            entry.bytes += bytes
            entry.fin = entry.fin || fin
            pending[key] = entry
            flush(key, on: connection)
        case .streamWritable(let stream):
            flush(Key(connection: connection.id, stream: stream), on: connection)
        case .datagram(let bytes):
            try? connection.sendDatagram(bytes)
        case .streamReset(let stream, _), .streamClosed(let stream):
            pending[Key(connection: connection.id, stream: stream)] = nil
        case .closed:
            pending = pending.filter { $0.key.connection != connection.id }
        default:
            break
        }
    }

    private func flush(_ key: Key, on connection: QuicConnection) {
        guard let entry = pending[key], !entry.bytes.isEmpty || entry.fin else { return }
        guard let taken = try? connection.write(entry.bytes, to: key.stream, fin: entry.fin) else { return }
        if taken == entry.bytes.count {
            pending[key] = nil
        } else {
            pending[key] = (Array(entry.bytes[taken...]), entry.fin)
        }
    }
}
