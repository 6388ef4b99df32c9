internal import CQuic
import Glibc
import RuntimeCore

/// Packets in, timers, and the ways a connection ends (RFC 9000 section 10).
extension QuicConnection {
    func receive(_ packet: UnsafeRawBufferPointer, local: SocketAddress, remote: SocketAddress) {
        switch phase {
        case .closing:
            // Answer with our CONNECTION_CLOSE, but less often the more the peer sends.
            packetsWhileClosing += 1
            if packetsWhileClosing & (packetsWhileClosing - 1) == 0 { closingPacketDue = true }
            return
        case .draining, .closed:
            return
        case .handshaking, .established:
            break
        }
        guard let raw else { return }
        datagramsSinceLastPacket += 1
        if packet.count >= 1200 { fullSizeDatagramSinceLastPacket = true }
        var info = ngtcp2_pkt_info()
        let result = endpoint.scratch.withPath(local: local, remote: remote) { path in
            cquic_conn_read_pkt(raw, path, &info, packet.baseAddress!.assumingMemoryBound(to: UInt8.self), packet.count,
                                now.nanoseconds)
        }
        if result != 0 { handleLibraryError(result, during: "read") }
        // The peer answered: whatever still waits, waits from now.
        if configuration.silenceTimeout != nil { awaitingAnswerSince = statistics.bytesInFlight > 0 ? now : nil }
    }

    /// The earliest of the protocol's deadlines (ngtcp2's timers, or the end of the closing or
    /// draining period) and the coalescing window's.
    var nextDeadline: UInt64 { min(protocolDeadline, heldUntil) }

    var protocolDeadline: UInt64 {
        guard isHoldingAcknowledgement, case .established = phase, let raw else { return unheldProtocolDeadline }
        // While an ACK is held, ngtcp2's earliest timer is that ACK's: it waits for the hold's
        // end. Its loss detection timer (a PTO, or the time threshold of a packet of ours not
        // acknowledged) does not wait; its other timers (idle, keep-alive, forgetting lost
        // packets) are seconds away or harmless a hold late.
        var stat = ngtcp2_conn_stat()
        cquic_conn_get_conn_stat(raw, &stat)
        return min(max(ngtcp2_conn_get_expiry(raw), acknowledgementHeldUntil), stat.loss_detection_timer, silenceDeadline)
    }

    /// The protocol's deadline as ngtcp2 and the silence timeout see it, an ACK owed included.
    var unheldProtocolDeadline: UInt64 {
        switch phase {
        case .closing(let until), .draining(let until): return until.nanoseconds
        case .closed: return .max
        case .handshaking, .established:
            guard let raw else { return .max }
            return min(ngtcp2_conn_get_expiry(raw), silenceDeadline)
        }
    }

    /// ``QuicConfiguration/silenceTimeout`` after something began to wait for the peer with nothing
    /// received since, on an established connection.
    private var silenceDeadline: UInt64 {
        guard let silence = configuration.silenceTimeout, case .established = phase, let since = awaitingAnswerSince else { return .max }
        return (since + silence).nanoseconds
    }

    func handleExpiry() {
        switch phase {
        case .closing(let until), .draining(let until):
            if now >= until { phase = .closed }
            return
        case .closed: return
        case .handshaking, .established: break
        }
        guard let raw else { return }
        if silenceDeadline <= now.nanoseconds, let silence = configuration.silenceTimeout {
            phase = .closed
            finish(QuicCloseReason(kind: .dropped, reason: "no answer from \(remoteAddress) for \(silence)", byPeer: false))
            return
        }
        let result = ngtcp2_conn_handle_expiry(raw, now.nanoseconds)
        if result != 0 { handleLibraryError(result, during: "timer") }
    }

    /// Closes with an application error code (CONNECTION_CLOSE type 0x1d) and a reason phrase.
    /// Packets ngtcp2 still owes the peer (ACKs, the handshake's last flight) go out first, so a
    /// client closing right after its handshake lets the server confirm it and drain at once;
    /// queued stream data and datagrams are dropped.
    public func close(applicationCode: UInt64, reason: String = "") {
        guard isUsable else { return }
        pendingClose = (applicationCode, Array(reason.utf8.prefix(512)))
        finish(QuicCloseReason(kind: .application(code: applicationCode), reason: reason, byPeer: false))
        endpoint.markDirty(self)
    }

    /// Writes the CONNECTION_CLOSE the application asked for.
    func sendPendingClose() {
        guard let (code, phrase) = pendingClose else { return }
        pendingClose = nil
        var error = ngtcp2_connection_close_error()
        ngtcp2_connection_close_error_default(&error)
        var bytes = phrase
        bytes.withUnsafeMutableBufferPointer {
            ngtcp2_connection_close_error_set_application_error(&error, code, $0.baseAddress, $0.count)
            enterClosing(with: &error)
        }
    }

    func handleLibraryError(_ code: Int32, during operation: String) {
        guard let raw else { return }
        switch code {
        case NGTCP2_ERR_DRAINING:
            phase = .draining(until: now + closePeriod)
            finish(peerCloseReason())
        case NGTCP2_ERR_IDLE_CLOSE:
            phase = .closed
            finish(QuicCloseReason(kind: .idleTimeout, reason: "no packets for \(configuration.idleTimeout)", byPeer: false))
        case NGTCP2_ERR_HANDSHAKE_TIMEOUT:
            phase = .closed
            finish(QuicCloseReason(kind: .handshakeTimeout, reason: "handshake not done in \(configuration.handshakeTimeout)", byPeer: false))
        case NGTCP2_ERR_DROP_CONN:
            phase = .closed
            finish(QuicCloseReason(kind: .dropped, reason: "dropped by ngtcp2", byPeer: false))
        case NGTCP2_ERR_CRYPTO:
            let alert = ngtcp2_conn_get_tls_alert(raw)
            if let verdict = tls?.serverCertificateVerdict {
                serverCertificateVerdict = verdict
                peerCertificateFingerprint = tls?.peerCertificateFingerprint
            }
            let why = tls?.verificationFailure.map { "certificate verification failed: \($0)" }
                ?? "TLS alert \(TLSSession.alertName(alert))"
            var error = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_default(&error)
            ngtcp2_connection_close_error_set_transport_error_tls_alert(&error, alert, nil, 0)
            enterClosing(with: &error)
            finish(QuicCloseReason(kind: .tlsFailure(alert: alert), reason: why, byPeer: false))
        default:
            var error = ngtcp2_connection_close_error()
            ngtcp2_connection_close_error_default(&error)
            ngtcp2_connection_close_error_set_transport_error_liberr(&error, code, nil, 0)
            enterClosing(with: &error)
            finish(QuicCloseReason(kind: .transport(code: error.error_code),
                                   reason: "\(operation): \(QuicConnection.errorText(code))", byPeer: false))
        }
    }

    /// The peer's port is unreachable (ICMP): nobody there to send a CONNECTION_CLOSE to, nor
    /// to wait for. The application learns it as `.dropped`.
    func peerUnreachable() {
        switch phase {
        case .handshaking, .established:
            phase = .closed
            finish(QuicCloseReason(kind: .dropped, reason: "nothing listens at \(remoteAddress) (ICMP port unreachable)", byPeer: false))
        case .closing, .draining, .closed:
            return
        }
    }

    /// Three PTOs, as RFC 9000 section 10.2 asks for the closing and draining periods.
    var closePeriod: TimeSpan {
        guard let raw else { return .zero }
        return TimeSpan(nanoseconds: ngtcp2_conn_get_pto(raw) * 3)
    }

    private func enterClosing(with error: inout ngtcp2_connection_close_error) {
        guard let raw else { return }
        if ngtcp2_conn_is_in_draining_period(raw) != 0 {
            phase = .draining(until: now + closePeriod)
            return
        }
        var packet = [UInt8](repeating: 0, count: max(configuration.maxUDPPayloadSize, Int(NGTCP2_MAX_UDP_PAYLOAD_SIZE)))
        let written = endpoint.scratch.withWritePath { path in
            packet.withUnsafeMutableBufferPointer {
                cquic_conn_write_connection_close(raw, path, nil, $0.baseAddress, $0.count, &error, now.nanoseconds)
            }
        }
        if written > 0 {
            closingPacket = Array(packet[..<Int(written)])
            closingPacketDue = true
            phase = .closing(until: now + closePeriod)
        } else {
            phase = .closed
        }
        endpoint.markDirty(self)
    }

    private func peerCloseReason() -> QuicCloseReason {
        if receivedStatelessReset {
            return QuicCloseReason(kind: .statelessReset, reason: "stateless reset", byPeer: true)
        }
        guard let raw else { return QuicCloseReason(kind: .dropped, reason: "", byPeer: true) }
        var error = ngtcp2_connection_close_error()
        ngtcp2_conn_get_connection_close_error(raw, &error)
        let reason = error.reason.map { String(decoding: UnsafeBufferPointer(start: $0, count: error.reasonlen), as: UTF8.self) } ?? ""
        switch error.type {
        case NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION:
            return QuicCloseReason(kind: .application(code: error.error_code), reason: reason, byPeer: true)
        default:
            var text = reason
            if error.error_code >= 0x100 && error.error_code < 0x200 {
                text = "TLS alert \(TLSSession.alertName(UInt8(error.error_code - 0x100)))" + (reason.isEmpty ? "" : ": \(reason)")
            }
            return QuicCloseReason(kind: .transport(code: error.error_code), reason: text, byPeer: true)
        }
    }

    /// Reports the end once and drops what can no longer be sent.
    private func finish(_ reason: QuicCloseReason) {
        guard closeReason == nil else { return }
        closeReason = reason
        datagramQueue.removeAll()
        sendQueue.removeAll()
        bulkSendQueue.removeAll()
        emit(.closed(reason))
    }
}
