internal import CQuic
import Glibc
import RuntimeCore

/// Packets that share a path and, except the last, a size: one `sendmsg` with UDP GSO.
public struct TransmitBatch: Equatable, Sendable {
    public var destination: SocketAddress
    public var source: SocketAddress
    public var byteCount: Int
    public var segmentSize: Int
    public var segmentCount: Int
}

extension QuicConnection {
    /// Writes up to `maxSegments` packets for one path into `buffer`.
    func writeBatch(into buffer: UnsafeMutableRawBufferPointer, maxSegments: Int) -> TransmitBatch? {
        // Whatever was held for the coalescing window leaves with this write.
        if heldUntil != .max {
            if heldUntil > now.nanoseconds { endpoint.statistics.coalescingHoldsCutShort += 1 }
            heldUntil = .max
        }
        // A held ACK leaves with this write too (or ngtcp2 no longer owes it).
        acknowledgementHeldUntil = .max
        switch phase {
        case .closing:
            guard closingPacketDue, closingPacket.count <= buffer.count else { return nil }
            closingPacketDue = false
            closingPacket.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return TransmitBatch(destination: remoteAddress, source: localAddress, byteCount: closingPacket.count,
                                 segmentSize: closingPacket.count, segmentCount: 1)
        case .draining, .closed:
            return nil
        case .handshaking, .established:
            break
        }
        guard let raw else { return nil }
        let packetLimit = configuration.maxUDPPayloadSize
        let quantum = ngtcp2_conn_get_send_quantum(raw)
        let segmentLimit = max(1, min(maxSegments, quantum / max(packetLimit, 1)))
        var batch: TransmitBatch?
        var offset = 0
        if let stash {
            self.stash = nil
            stash.bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            offset = stash.bytes.count
            batch = TransmitBatch(destination: stash.remote, source: stash.local, byteCount: offset,
                                  segmentSize: offset, segmentCount: 1)
        }
        isDrained = false
        let pathLimit = Int(ngtcp2_conn_get_path_max_tx_udp_payload_size(raw))
        while (batch?.segmentCount ?? 0) < segmentLimit && offset + packetLimit <= buffer.count {
            let destination = buffer.baseAddress! + offset
            let written = writePacket(into: destination, capacity: packetLimit, applicationData: pendingClose == nil)
            guard written > 0 else { break }
            let scratch = endpoint.scratch
            if var current = batch {
                if written > current.segmentSize || !scratch.writtenPathEqualsBatchPath() {
                    // Cannot join this GSO batch: keep the packet for the next one.
                    stash = (Array(UnsafeRawBufferPointer(start: destination, count: written)),
                             scratch.writtenLocal ?? localAddress, scratch.writtenRemote ?? remoteAddress)
                    break
                }
                current.byteCount += written
                current.segmentCount += 1
                offset += written
                batch = current
                if written < current.segmentSize { break }
            } else {
                guard let local = scratch.writtenLocal, let remote = scratch.writtenRemote else { break }
                batch = TransmitBatch(destination: remote, source: local, byteCount: written, segmentSize: written,
                                      segmentCount: 1)
                offset = written
                scratch.rememberBatchPath()
            }
            // A packet short of the path's size with nothing of ours left to send means ngtcp2 had
            // nothing more for it either (it fills packets with what is pending, ACKs and
            // retransmissions included): asking again would be a write that writes nothing.
            if written < pathLimit && isEstablished && hasNoQueuedData {
                isDrained = true
                break
            }
        }
        if batch != nil {
            lastPacketSentAt = now.nanoseconds
            datagramsSinceLastPacket = 0
            fullSizeDatagramSinceLastPacket = false
            ngtcp2_conn_update_pkt_tx_time(raw, now.nanoseconds)
            if isDrained { dropIdlePacingDeadline(raw) }
            // Something now waits for the peer since this moment, unless something waited already.
            if configuration.silenceTimeout != nil, awaitingAnswerSince == nil, statistics.bytesInFlight > 0 { awaitingAnswerSince = now }
        }
        if batch == nil && pendingClose != nil {
            sendPendingClose()
            return writeBatch(into: buffer, maxSegments: maxSegments)
        }
        return batch
    }

    /// Nothing of the application's waits to be sent: no stream data, datagram, stashed packet or close.
    var hasNoQueuedData: Bool {
        sendQueue.isEmpty && bulkSendQueue.isEmpty && datagramQueue.isEmpty && stash == nil && pendingClose == nil
    }

    /// Whether ngtcp2 may have a packet to send after the datagram just read, when nothing of the
    /// application's is queued and `deadline` is the connection's next deadline now. ngtcp2 0.12.1
    /// has no call that says whether it wants to write; what it shows is enough to tell the one
    /// read that leaves nothing to send, an ACK of what we sent, from the others:
    /// - An ACK is owed: the packet carried frames that ask for one, and some of them ask for
    ///   more (PATH_CHALLENGE for a PATH_RESPONSE, RETIRE_CONNECTION_ID for a NEW_CONNECTION_ID,
    ///   NEW_CONNECTION_ID retiring older ones for RETIRE_CONNECTION_ID, STOP_SENDING for
    ///   RESET_STREAM). ngtcp2's ACK-delay deadline is then at most min(max_ack_delay, smoothed
    ///   RTT / 8) away, so a deadline that near means: write now, do not wait for it.
    /// - The read declared packets lost: a congestion event began at this instant, and their
    ///   frames (stream data or control frames) wait to be sent again.
    /// What our own calls make ngtcp2 owe during a read (MAX_STREAMS when a stream closes,
    /// HANDSHAKE_DONE, MAX_DATA and MAX_STREAM_DATA when the application takes the bytes) marks
    /// the connection dirty where it happens. Left to ngtcp2's own deadlines (within a PTO): a
    /// packet declared lost while the recovery from an earlier loss is under way (no new
    /// congestion event), a retransmission the congestion window held back until an ACK opens
    /// it, and the next path MTU probe after one is acknowledged.
    func mayOweFramesAfterRead(deadline: UInt64) -> Bool {
        guard let raw else { return false }
        var stat = ngtcp2_conn_stat()
        cquic_conn_get_conn_stat(raw, &stat)
        if stat.congestion_recovery_start_ts == now.nanoseconds { return true }
        return deadline <= now.nanoseconds + stat.smoothed_rtt / 8
    }

    /// After a write that left nothing to send, the pacer's next-send time (usually well under a
    /// millisecond away at chat rates) is still ngtcp2's earliest deadline, and waking up for it
    /// is a timer, a `handle_expiry` and a write that writes nothing, per packet. ngtcp2 lets a
    /// packet go up to 1 ms before its pacing time anyway, so a pacing deadline that close is
    /// cleared at once; one further away stays, as does every other timer. If anything is due
    /// after that, the connection is not drained: it will be written again.
    private func dropIdlePacingDeadline(_ raw: OpaquePointer) {
        let result = ngtcp2_conn_handle_expiry(raw, now.nanoseconds)
        if result != 0 {
            isDrained = false
            handleLibraryError(result, during: "timer")
        } else if ngtcp2_conn_get_expiry(raw) <= now.nanoseconds {
            isDrained = false
        }
    }

    /// Writes one packet: queued datagrams first (typing must not wait behind chat), then
    /// interactive stream data round-robin, then bulk stream data round-robin (see
    /// ``markBulk(_:)``), coalescing frames into the packet. Returns its size, 0 when nothing is
    /// due, or 0 after a fatal error (which starts the close).
    private func writePacket(into destination: UnsafeMutableRawPointer, capacity: Int, applicationData: Bool) -> Int {
        guard let raw else { return 0 }
        let scratch = endpoint.scratch
        let bytes = destination.assumingMemoryBound(to: UInt8.self)
        var info = ngtcp2_pkt_info()
        var skipped = 0
        let vectors = scratch.vectors
        while true {
            if applicationData, let datagram = datagramQueue.first {
                var accepted: Int32 = 0
                let written = datagram.withUnsafeBufferPointer { payload -> Int in
                    var vector = ngtcp2_vec(base: UnsafeMutablePointer(mutating: payload.baseAddress), len: payload.count)
                    return scratch.withWritePath { path in
                        cquic_conn_writev_datagram(raw, path, &info, bytes, capacity, &accepted,
                                                   UInt32(NGTCP2_WRITE_DATAGRAM_FLAG_MORE), 0, &vector, 1, now.nanoseconds)
                    }
                }
                if accepted != 0 { _ = datagramQueue.popFirst() }
                if written == Int(NGTCP2_ERR_WRITE_MORE) { continue }
                if written < 0 {
                    handleLibraryError(Int32(written), during: "write datagram")
                    return 0
                }
                if written > 0 { return written }
                // Nothing written: congestion-limited, or the datagram no longer fits the path.
                if accepted == 0, let size = datagramQueue.first?.count, size > (maxDatagramPayloadSize ?? 0) {
                    _ = datagramQueue.popFirst()
                    continue
                }
                return 0
            }
            let stream = applicationData ? nextStreamToSend(skipping: skipped, raw: raw) : nil
            var count = 0
            // MORE keeps the packet open for the next stream's data; with nothing else to add it
            // would only cost a second call that closes the packet.
            var flags = sendQueue.count + bulkSendQueue.count > skipped + 1 || !datagramQueue.isEmpty
                ? UInt32(NGTCP2_WRITE_STREAM_FLAG_MORE) : 0
            var streamID: Int64 = -1
            if let stream {
                streamID = stream.id
                let complete = stream.forEachUnsentPiece(limit: scratch.vectorCapacity) { pointer, length in
                    vectors[count] = ngtcp2_vec(base: pointer.assumingMemoryBound(to: UInt8.self), len: length)
                    count += 1
                }
                if complete && stream.finQueued && !stream.finSent { flags |= UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) }
            }
            var accepted: ngtcp2_ssize = -1
            let written = scratch.withWritePath { path in
                cquic_conn_writev_stream(raw, path, &info, bytes, capacity, &accepted, flags, streamID,
                                         vectors, count, now.nanoseconds)
            }
            if let stream, accepted >= 0 { recordSent(stream, count: Int(accepted), finRequested: flags & UInt32(NGTCP2_WRITE_STREAM_FLAG_FIN) != 0) }
            switch Int32(clamping: written) {
            case NGTCP2_ERR_WRITE_MORE:
                continue
            case NGTCP2_ERR_STREAM_DATA_BLOCKED:
                skipped += 1
                continue
            case NGTCP2_ERR_STREAM_SHUT_WR, NGTCP2_ERR_STREAM_NOT_FOUND:
                if let stream {
                    stream.writeClosed = true
                    stream.discardAll()
                    removeFromSendQueue(stream)
                }
                continue
            default:
                if written < 0 {
                    handleLibraryError(Int32(clamping: written), during: "write")
                    return 0
                }
                return written
            }
        }
    }

    /// The next stream with unsent data, passing over `skipping` blocked ones: interactive
    /// streams first, then bulk streams while ``bulkMaySend(_:)``, each kind round-robin.
    private func nextStreamToSend(skipping: Int, raw: OpaquePointer) -> StreamState? {
        if skipping < sendQueue.count, let stream = firstSendable(in: &sendQueue, from: skipping) { return stream }
        let bulkIndex = skipping - sendQueue.count
        guard bulkIndex < bulkSendQueue.count, bulkMaySend(raw) else { return nil }
        return firstSendable(in: &bulkSendQueue, from: bulkIndex)
    }

    /// The stream at `index` of `queue`, after dropping the entries there that have nothing left
    /// to send.
    private func firstSendable(in queue: inout [QuicStreamID], from index: Int) -> StreamState? {
        while index < queue.count {
            let streamID = queue[index]
            if let stream = streams[streamID], stream.hasUnsentData, !stream.writeClosed { return stream }
            queue.remove(at: index)
            streams[streamID]?.inSendQueue = false
        }
        return nil
    }

    private func recordSent(_ stream: StreamState, count: Int, finRequested: Bool) {
        stream.markSent(count)
        if finRequested && !stream.hasUnsentDataIgnoringFin { stream.finSent = true }
        if !stream.hasUnsentData {
            removeFromSendQueue(stream)
        } else if stream.isBulk {
            rotate(stream.id, in: &bulkSendQueue)
        } else {
            rotate(stream.id, in: &sendQueue)
        }
    }

    /// Moves a stream to the back, so the next packet serves another stream of its kind first.
    private func rotate(_ streamID: QuicStreamID, in queue: inout [QuicStreamID]) {
        guard let index = queue.firstIndex(of: streamID), index + 1 < queue.count else { return }
        queue.remove(at: index)
        queue.append(streamID)
    }

    private func removeFromSendQueue(_ stream: StreamState) {
        if stream.isBulk {
            if let index = bulkSendQueue.firstIndex(of: stream.id) { bulkSendQueue.remove(at: index) }
        } else if let index = sendQueue.firstIndex(of: stream.id) {
            sendQueue.remove(at: index)
        }
        stream.inSendQueue = false
    }
}

extension StreamState {
    var hasUnsentDataIgnoringFin: Bool { sentOffset < queuedOffset }
}
