internal import CQuic

/// Bulk streams: file transfers that share a connection with chat without delaying it.
///
/// Sending, a bulk stream's data goes into a packet only when no interactive stream has data
/// that can be sent, and only while the congestion window and the peer's connection credit
/// keep a reserve for interactive data, so a chat line written during a transfer never waits
/// for the window a file filled. Datagrams go before both. Bulk streams share what is left
/// round-robin, packet by packet.
///
/// Receiving, a bulk stream's delivered bytes give the peer connection credit back at once, as
/// every stream's do, but credit on the stream itself only when the application calls
/// ``releaseReceiveCredit(_:count:)``, after it has consumed them (written them to disk, say):
/// the stream's window is then the back-pressure, and what a file holds in memory is at most
/// that window. Since connection credit is never held, a file cannot use up the credit the
/// chat stream needs.
extension QuicConnection {
    /// Makes a stream (ours, or one the peer opened: call it when ``QuicEvent/streamOpened(_:)``
    /// is handled, before its data) a bulk stream.
    public func markBulk(_ streamID: QuicStreamID) {
        guard let stream = streams[streamID], !stream.isBulk else { return }
        stream.isBulk = true
        bulkStreamCount += 1
        if stream.inSendQueue, let index = sendQueue.firstIndex(of: streamID) {
            sendQueue.remove(at: index)
            bulkSendQueue.append(streamID)
        }
    }

    /// Whether the stream is a bulk stream.
    public func isBulk(_ streamID: QuicStreamID) -> Bool { streams[streamID]?.isBulk ?? false }

    /// Gives the peer `count` more bytes of credit on a bulk stream, for delivered bytes the
    /// application has consumed.
    public func releaseReceiveCredit(_ streamID: QuicStreamID, count: Int) {
        guard let raw, isUsable, count > 0 else { return }
        _ = ngtcp2_conn_extend_max_stream_offset(raw, streamID, UInt64(count))
        endpoint.markDirty(self)
    }

    /// A bulk stream went away.
    func bulkStreamClosed(_ stream: StreamState) {
        guard stream.isBulk else { return }
        bulkStreamCount -= 1
    }

    /// Whether bulk data may go into the packet being written: the congestion window keeps room
    /// for two full packets of interactive data, and the peer's connection credit for one
    /// largest chat message (at most an eighth of the peer's initial credit, so a peer with a
    /// small window still gets bulk data).
    func bulkMaySend(_ raw: OpaquePointer) -> Bool {
        guard ngtcp2_conn_get_cwnd_left(raw) >= UInt64(2 * configuration.maxUDPPayloadSize) else { return false }
        let reserve: UInt64
        if let known = bulkCreditReserve {
            reserve = known
        } else {
            guard let params = ngtcp2_conn_get_remote_transport_params(raw) else { return false }
            reserve = min(64 << 10, params.pointee.initial_max_data / 8)
            bulkCreditReserve = reserve
        }
        return ngtcp2_conn_get_max_data_left(raw) > reserve
    }
}
