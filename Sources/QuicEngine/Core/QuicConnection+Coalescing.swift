/// The coalescing window (``QuicConfiguration/coalescingWindow``): stream data written to a
/// connection that sent a packet very recently waits a little, so that one packet, one seal, one
/// slot of a `sendmmsg` and one ACK back carry several messages instead of one each. A connection
/// that has been quiet for a window sends at once, so an idle member pays nothing; one that is
/// written to steadily sends at most one flight per window. The bound holds for every byte: the
/// hold ends one window after the last packet, which left before the write.
extension QuicConnection {
    /// Whether stream data just queued is held instead of sent in this round. It is held when the
    /// window is on, the connection's last packet left less than a window ago, that write left
    /// nothing unsent (what waits for credit or the congestion window is never held back
    /// further) and no write is already due this round (``isDirty``: the data joins it). Anything
    /// that marks the connection dirty meanwhile (a datagram, a control frame ngtcp2 owes, a
    /// timer, a close) sends the held data with it.
    func holdForCoalescing() -> Bool {
        if isHolding { return true }
        let window = configuration.coalescingWindow.nanoseconds
        guard window > 0, !isDirty, isDrained, isEstablished else { return false }
        let until = lastPacketSentAt &+ window
        guard until > now.nanoseconds else { return false }
        heldUntil = until
        endpoint.rescheduleForHold(self)
        return true
    }

    var isHolding: Bool { heldUntil != .max }
}
