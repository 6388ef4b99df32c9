internal import CQuic

/// The application's side of streams and datagrams.
extension QuicConnection {
    /// Opens a bidirectional stream, a bulk one (``markBulk(_:)``) when `bulk` is true. Throws
    /// `streamLimitReached` when the peer allows no more yet.
    public func openStream(bulk: Bool = false) throws -> QuicStreamID {
        guard let raw, isUsable else { throw QuicError.connectionClosed }
        var streamID: Int64 = -1
        let result = ngtcp2_conn_open_bidi_stream(raw, &streamID, nil)
        if result == NGTCP2_ERR_STREAM_ID_BLOCKED { throw QuicError.streamLimitReached }
        guard result == 0 else {
            throw QuicError.library(function: "ngtcp2_conn_open_bidi_stream", code: result, message: QuicConnection.errorText(result))
        }
        streams[streamID] = StreamState(id: streamID)
        if bulk { markBulk(streamID) }
        return streamID
    }

    /// Queues as many of `bytes` as the stream's send buffer takes and returns that count. When it
    /// takes fewer than offered, `streamWritable` follows once the buffer has drained by half.
    @discardableResult
    public func write(_ bytes: [UInt8], to streamID: QuicStreamID, fin: Bool = false) throws -> Int {
        let stream = try writableStream(streamID)
        let room = max(0, configuration.streamSendBufferLimit - stream.buffered)
        let accepted = min(room, bytes.count)
        if accepted > 0 {
            let chunk = OutboundBytes(accepted == bytes.count ? bytes : Array(bytes[..<accepted]))
            stream.enqueue(chunk, start: 0, end: accepted)
        }
        if accepted < bytes.count { stream.wantsWritable = true }
        if fin && accepted == bytes.count { stream.finQueued = true }
        scheduleSend(stream)
        return accepted
    }

    /// Queues shared bytes whole, or refuses them (returns false) when the send buffer is full.
    /// The same `OutboundBytes` may be queued on many streams: nothing is copied.
    @discardableResult
    public func write(_ bytes: OutboundBytes, to streamID: QuicStreamID, fin: Bool = false) throws -> Bool {
        let stream = try writableStream(streamID)
        guard stream.buffered + bytes.count <= configuration.streamSendBufferLimit else {
            stream.wantsWritable = true
            return false
        }
        stream.enqueue(bytes, start: 0, end: bytes.count)
        if fin { stream.finQueued = true }
        scheduleSend(stream)
        return true
    }

    /// Ends our side of the stream after what is queued.
    public func finish(_ streamID: QuicStreamID) throws {
        let stream = try writableStream(streamID)
        stream.finQueued = true
        scheduleSend(stream)
    }

    /// Bytes queued on the stream and not yet acknowledged by the peer.
    public func bufferedAmount(_ streamID: QuicStreamID) -> Int {
        streams[streamID]?.buffered ?? 0
    }

    /// Abandons our side of the stream with RESET_STREAM carrying `errorCode`.
    public func resetStream(_ streamID: QuicStreamID, errorCode: UInt64) {
        guard let raw, isUsable else { return }
        streams[streamID]?.discardAll()
        streams[streamID]?.writeClosed = true
        _ = ngtcp2_conn_shutdown_stream_write(raw, streamID, errorCode)
        endpoint.markDirty(self)
    }

    /// Asks the peer to stop sending on the stream (STOP_SENDING with `errorCode`).
    public func stopSending(_ streamID: QuicStreamID, errorCode: UInt64) {
        guard let raw, isUsable else { return }
        _ = ngtcp2_conn_shutdown_stream_read(raw, streamID, errorCode)
        endpoint.markDirty(self)
    }

    /// The largest datagram payload the peer accepts on the current path; nil when it accepts
    /// none or the handshake has not told us yet.
    public var maxDatagramPayloadSize: Int? {
        guard let raw, isUsable, let params = ngtcp2_conn_get_remote_transport_params(raw) else { return nil }
        let frameLimit = Int(min(params.pointee.max_datagram_frame_size, 65535))
        guard frameLimit > 0 else { return nil }
        // DATAGRAM frame: type byte + 2-byte length. Short header: 1 + DCID + up to 4-byte packet
        // number, then the 16-byte AEAD tag.
        let dcidLength = Int(ngtcp2_conn_get_dcid(raw).pointee.datalen)
        let packetLimit = Int(ngtcp2_conn_get_path_max_tx_udp_payload_size(raw)) - (1 + dcidLength + 4 + 16) - 3
        return max(0, min(frameLimit - 3, packetLimit))
    }

    /// Queues an unreliable datagram. Oversized, empty or unsupported datagrams are errors.
    public func sendDatagram(_ bytes: [UInt8]) throws {
        guard isUsable else { throw QuicError.connectionClosed }
        guard !bytes.isEmpty else { throw QuicError.emptyDatagram }
        guard let limit = maxDatagramPayloadSize else { throw QuicError.datagramsUnsupported }
        guard bytes.count <= limit else { throw QuicError.datagramTooLarge(size: bytes.count, limit: limit) }
        guard datagramQueue.count < configuration.maxQueuedDatagrams else { throw QuicError.datagramQueueFull }
        datagramQueue.append(bytes)
        endpoint.markDirty(self)
    }

    private func writableStream(_ streamID: QuicStreamID) throws -> StreamState {
        guard isUsable else { throw QuicError.connectionClosed }
        guard let stream = streams[streamID] else { throw QuicError.unknownStream(streamID) }
        guard !stream.writeClosed, !stream.finQueued else { throw QuicError.streamNotWritable(streamID) }
        return stream
    }

    private func scheduleSend(_ stream: StreamState) {
        if !stream.inSendQueue && stream.hasUnsentData {
            stream.inSendQueue = true
            if stream.isBulk { bulkSendQueue.append(stream.id) } else { sendQueue.append(stream.id) }
        }
        // Bulk data is never held: a file's next chunk written after the pipe drained would wait
        // a window each time, and its throughput would be a chunk per window.
        if !stream.isBulk && holdForCoalescing() { return }
        endpoint.markDirty(self)
    }
}
