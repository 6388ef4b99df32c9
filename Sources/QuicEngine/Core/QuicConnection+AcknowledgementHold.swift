internal import CQuic
import RuntimeCore

/// The acknowledgement hold (``QuicConfiguration/acknowledgementHold``): after a read that left
/// this connection owing only an ACK, the write that would carry it waits, so that one ACK covers
/// the packets of the next few milliseconds instead of each its own. Most of what a busy chat
/// server reads is its members' ACKs (issue 25); ngtcp2 0.12 acknowledges at min(max_ack_delay,
/// RTT / 8) after a packet, which on a fast link is microseconds, so every delivery came back as
/// a datagram to read, decrypt and process.
///
/// The hold is safe for the peer's loss recovery because it stays below the max_ack_delay we
/// advertise, which the peer's PTO already waits for (RFC 9002 section 6.2.1); our own loss
/// detection timer is never held (``protocolDeadline``). It is only taken when waiting can slow
/// nothing of ours: nothing of ours queued, no loss declared by this read, fewer than
/// ``QuicConfiguration/acknowledgementHoldPackets`` packets waiting, and none of them a full-size
/// datagram (bulk data, whose sender's window grows with our ACKs, or a PATH_CHALLENGE, always
/// padded to 1,200 bytes, whose PATH_RESPONSE must not wait). Anything that makes the connection
/// write meanwhile (the application's data, a control frame a callback marked owed, a timer)
/// takes the ACK with it. What ngtcp2 owes in answer to a small packet besides the ACK
/// (RETIRE_CONNECTION_ID for a NEW_CONNECTION_ID, RESET_STREAM for a STOP_SENDING) waits with the
/// ACK, at most the hold: within the latency budget, and rare.
extension QuicConnection {
    /// Whether the ACK this read made owed may wait; starts the hold if none runs. While it runs,
    /// ngtcp2's ACK deadline waits for its end (``protocolDeadline``).
    func holdAcknowledgement() -> Bool {
        let hold = configuration.acknowledgementHold.nanoseconds
        guard hold > 0, let raw, isEstablished, isHandshakeConfirmed, hasNoQueuedData, !isHolding,
              !fullSizeDatagramSinceLastPacket,
              datagramsSinceLastPacket < configuration.acknowledgementHoldPackets else { return false }
        // (A hold that ends here for any of these reasons ends with the write the caller makes.)
        var stat = ngtcp2_conn_stat()
        cquic_conn_get_conn_stat(raw, &stat)
        let now = self.now.nanoseconds
        guard stat.congestion_recovery_start_ts != now else { return false }
        if acknowledgementHeldUntil == .max {
            // From the first packet the ACK will cover: no packet waits longer than the hold.
            acknowledgementHeldUntil = now &+ hold
            endpoint.statistics.acknowledgementHolds += 1
        }
        return acknowledgementHeldUntil > now
    }

    /// Whether an ACK is being held (``holdAcknowledgement()``).
    var isHoldingAcknowledgement: Bool { acknowledgementHeldUntil != .max }
}
