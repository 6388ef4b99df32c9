internal import CQuic
import Glibc
import RuntimeCore

/// ngtcp2 calls back into these capture-free thunks. Each one finds its connection through
/// `user_data`, records an event or copies bytes, and returns 0. None of them calls the
/// application or any ngtcp2 write function (ngtcp2 is not re-entrant).
extension QuicConnection {
    static func from(_ userData: UnsafeMutableRawPointer?) -> QuicConnection {
        Unmanaged<QuicConnection>.fromOpaque(userData!).takeUnretainedValue()
    }

    static func callbacks(isServer: Bool) -> ngtcp2_callbacks {
        var callbacks = ngtcp2_callbacks()
        if isServer {
            callbacks.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb
        } else {
            callbacks.client_initial = ngtcp2_crypto_client_initial_cb
            callbacks.recv_retry = ngtcp2_crypto_recv_retry_cb
        }
        // A server frees its TLS session once the handshake is done (``releaseTLSAfterHandshake``):
        // a client has no TLS message to send after it in QUIC (RFC 9001 section 4.1.3), so
        // CRYPTO data arriving then is refused instead of handed to a session that is gone.
        callbacks.recv_crypto_data = { raw, level, offset, data, length, userData in
            guard QuicConnection.from(userData).tls != nil else { return NGTCP2_ERR_CALLBACK_FAILURE }
            return ngtcp2_crypto_recv_crypto_data_cb(raw, level, offset, data, length, userData)
        }
        callbacks.encrypt = ngtcp2_crypto_encrypt_cb
        callbacks.decrypt = ngtcp2_crypto_decrypt_cb
        callbacks.hp_mask = ngtcp2_crypto_hp_mask_cb
        callbacks.update_key = ngtcp2_crypto_update_key_cb
        callbacks.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb
        callbacks.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb
        callbacks.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb
        callbacks.version_negotiation = ngtcp2_crypto_version_negotiation_cb

        // ngtcp2's `rand` has no user data; it is called for PATH_CHALLENGE data and the like,
        // rarely, so the system generator serves it directly.
        callbacks.rand = { destination, length, _ in
            guard let destination else { return }
            arc4random_buf(destination, length)
        }
        callbacks.get_new_connection_id = { _, cid, token, length, userData in
            let connection = QuicConnection.from(userData)
            let fresh = ConnectionID.random(length: length, from: connection.endpoint.random)
            cid!.pointee = fresh.ngtcp2
            let resetToken = connection.endpoint.statelessResetToken(for: fresh)
            resetToken.withUnsafeBufferPointer { token!.update(from: $0.baseAddress!, count: $0.count) }
            connection.endpoint.route(fresh, to: connection)
            return 0
        }
        callbacks.remove_connection_id = { _, cid, userData in
            let connection = QuicConnection.from(userData)
            connection.endpoint.unroute(ConnectionID(cid!.pointee), from: connection)
            return 0
        }
        callbacks.handshake_completed = { _, userData in
            let connection = QuicConnection.from(userData)
            connection.phase = .established
            connection.negotiatedALPN = connection.tls?.negotiatedALPN
            connection.peerCertificateSubject = connection.tls?.peerCertificateSubject
            connection.peerCertificateFingerprint = connection.tls?.peerCertificateFingerprint
            connection.serverCertificateVerdict = connection.tls?.serverCertificateVerdict
            connection.emit(.handshakeCompleted)
            // A server owes HANDSHAKE_DONE, its spare connection IDs and the session ticket now,
            // whatever the client sends next (it may send nothing until they arrive).
            connection.endpoint.markDirty(connection)
            return 0
        }
        callbacks.handshake_confirmed = { _, userData in
            QuicConnection.from(userData).isHandshakeConfirmed = true
            return 0
        }
        callbacks.stream_open = { _, streamID, userData in
            QuicConnection.from(userData).remoteStreamOpened(streamID)
            return 0
        }
        callbacks.recv_stream_data = { _, flags, streamID, _, data, length, userData, _ in
            let connection = QuicConnection.from(userData)
            if connection.streams[streamID] == nil { connection.remoteStreamOpened(streamID) }
            let bytes = length > 0 ? Array(UnsafeBufferPointer(start: data, count: length)) : []
            let fin = flags & UInt32(NGTCP2_STREAM_DATA_FLAG_FIN) != 0
            if fin { connection.sampleLosses(of: streamID) }
            connection.emit(.streamData(streamID, bytes, fin: fin))
            return 0
        }
        callbacks.acked_stream_data_offset = { _, streamID, offset, length, userData, _ in
            QuicConnection.from(userData).streamAcknowledged(streamID, upTo: offset + length)
            return 0
        }
        callbacks.stream_close = { raw, _, streamID, _, userData, _ in
            let connection = QuicConnection.from(userData)
            if let stream = connection.streams.removeValue(forKey: streamID) {
                connection.lostPacketsOfClosedStreams += stream.lostPackets
                connection.bulkStreamClosed(stream)
                stream.discardAll()
                connection.emit(.streamClosed(streamID))
            }
            // The peer may open another in its place: ngtcp2 0.12 leaves MAX_STREAMS to us (it
            // only counts a stream reset before it existed). Only a counter changes here; the
            // frame that carries it must leave now, also when what closed the stream was an ACK
            // of our last byte and nothing else is queued (the peer may be waiting to open one).
            if let raw, connection.isPeerBidirectional(streamID) {
                ngtcp2_conn_extend_max_streams_bidi(raw, 1)
                connection.endpoint.markDirty(connection)
            }
            return 0
        }
        callbacks.stream_reset = { _, streamID, _, errorCode, userData, _ in
            QuicConnection.from(userData).emit(.streamReset(streamID, errorCode: errorCode))
            return 0
        }
        callbacks.extend_max_stream_data = { _, _, _, userData, _ in
            QuicConnection.from(userData).endpoint.markDirty(QuicConnection.from(userData))
            return 0
        }
        callbacks.recv_datagram = { _, _, data, length, userData in
            let bytes = Array(UnsafeBufferPointer(start: data, count: length))
            QuicConnection.from(userData).emit(.datagram(bytes))
            return 0
        }
        callbacks.recv_stateless_reset = { _, _, userData in
            QuicConnection.from(userData).receivedStatelessReset = true
            return 0
        }
        callbacks.path_validation = { _, _, path, result, userData in
            guard result == NGTCP2_PATH_VALIDATION_RESULT_SUCCESS, let path else { return 0 }
            let connection = QuicConnection.from(userData)
            guard let local = SocketAddress(sockaddr: path.pointee.local.addr),
                  let remote = SocketAddress(sockaddr: path.pointee.remote.addr) else { return 0 }
            if local != connection.localAddress || remote != connection.remoteAddress {
                connection.localAddress = local
                connection.remoteAddress = remote
                connection.emit(.pathChanged(local: local, remote: remote))
            }
            return 0
        }
        return callbacks
    }

    /// A bidirectional stream the peer opened (client streams have bit 0 clear, bidirectional bit 1).
    func isPeerBidirectional(_ streamID: QuicStreamID) -> Bool {
        streamID & 0x2 == 0 && (streamID & 0x1 == 0) == isServer
    }

    func remoteStreamOpened(_ streamID: QuicStreamID) {
        guard streams[streamID] == nil else { return }
        streams[streamID] = StreamState(id: streamID)
        emit(.streamOpened(streamID))
    }

    func streamAcknowledged(_ streamID: QuicStreamID, upTo offset: UInt64) {
        guard let stream = streams[streamID] else { return }
        stream.acknowledge(upTo: offset)
        // The last of our data is acknowledged: the stream may close in this same read.
        if stream.finSent && offset >= stream.queuedOffset { sampleLosses(of: streamID) }
        if stream.wantsWritable && stream.buffered <= configuration.streamSendBufferLimit / 2 {
            stream.wantsWritable = false
            emit(.streamWritable(streamID))
        }
    }
}
