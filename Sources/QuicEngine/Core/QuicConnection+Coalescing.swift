/// The coalescing window (``QuicConfiguration/coalescingWindow``): stream data written to a
/// connection that is being written to faster than every half window, and that sent a packet less
/// than a window ago, waits until a window after that packet, so that one packet, one seal, one
/// slot of a `sendmmsg` and one ACK back carry several messages instead of one each. A connection
/// written to less often sends at once: holding a message that no other will join would only add
/// a wake-up for the hold's end (measured: at one message per window the server spent more, not
/// less). The bound holds for every byte: the hold ends a window after the last packet, which left
/// before the write.
extension QuicConnection {
    /// Whether interactive stream data just queued is held instead of sent in this round. It is
    /// held when the window is on, the previous write came less than half a window ago (so at
    /// least one more is likely to join it), the connection's last packet left less than a window
    /// ago, that write left nothing unsent (what waits for credit or the congestion window is
    /// never held back further) and no write is already due this round (``isDirty``: the data
    /// joins it). Anything that marks the connection dirty meanwhile (a datagram, a control frame
    /// ngtcp2 owes, bulk data, a timer, a close) sends the held data with it.
    func holdForCoalescing() -> Bool {
        let window = configuration.coalescingWindow.nanoseconds
        guard window > 0 else { return false }
        let now = self.now.nanoseconds
        let writtenRecently = now >= lastWriteAt && now - lastWriteAt <= window / 2
        lastWriteAt = now
        if isHolding { return true }
        guard writtenRecently, !isDirty, isDrained, isEstablished else { return false }
        let until = lastPacketSentAt &+ window
        guard until > now else { return false }
        heldUntil = until
        endpoint.statistics.coalescingHolds += 1
        endpoint.rescheduleForHold(self)
        return true
    }

    var isHolding: Bool { heldUntil != .max }
}
