import ChatProtocol
import QuicEngine

/// Writes file stream bodies for raw clients, a piece at a time as the send buffer drains (a
/// body is larger than the buffer), and ends them with FIN or leaves them open.
final class FileStreamPump {
    private struct Body {
        let bytes: [UInt8]
        var offset: Int
        let fin: Bool
    }

    private var bodies: [QuicStreamID: Body] = [:]

    /// Opens a file stream on `client`, writes `header` and then `body`; FIN after it when `fin`.
    @discardableResult
    func send(_ header: ChatMessage, body: [UInt8] = [], fin: Bool = true, on client: RawChatClient) throws -> QuicStreamID {
        client.onWritable = { [unowned self] client, stream in push(stream, on: client) }
        let stream = try client.connection.openStream(bulk: true)
        bodies[stream] = Body(bytes: header.encodedLine() + body, offset: 0, fin: fin)
        push(stream, on: client)
        return stream
    }

    /// Bytes of the stream's header and body not yet taken by the engine.
    func unsent(_ stream: QuicStreamID) -> Int { bodies[stream].map { $0.bytes.count - $0.offset } ?? 0 }

    private func push(_ stream: QuicStreamID, on client: RawChatClient) {
        guard var body = bodies[stream] else { return }
        while body.offset < body.bytes.count {
            let end = min(body.bytes.count, body.offset + (64 << 10))
            let last = end == body.bytes.count
            guard let accepted = try? client.connection.write(Array(body.bytes[body.offset..<end]), to: stream, fin: body.fin && last)
            else { break }
            body.offset += accepted
            if accepted < end - (body.offset - accepted) { break }
        }
        bodies[stream] = body.offset == body.bytes.count ? nil : body
    }
}
