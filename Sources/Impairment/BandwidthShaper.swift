import EventRuntime

/// A bottleneck link with a drop-tail queue, modelled by one number: when the link finishes
/// sending what it already holds. The backlog in bytes follows from that and the rate, so there
/// is no per-packet queue to maintain; the packets themselves wait in the timer heap.
struct BandwidthShaper {
    /// Bytes per second; 0 disables shaping.
    var rate: Int64
    var queueLimit: Int64
    private var busyUntil = MonotonicTime(nanoseconds: 0)

    init(rate: Int64, queueLimit: Int64) {
        self.rate = rate
        self.queueLimit = queueLimit
    }

    /// Bytes admitted but not yet fully sent at `now`.
    func backlog(at now: MonotonicTime) -> Int64 {
        guard rate > 0, busyUntil > now else { return 0 }
        return Int64(Double((busyUntil - now).nanoseconds) * Double(rate) / 1e9)
    }

    /// When a packet of `size` bytes arriving at `now` has left the bottleneck, or nil when the
    /// queue has no room for it. An idle link always accepts, so a queue smaller than one packet
    /// still passes traffic.
    mutating func departure(ofPacketSized size: Int, arrivingAt now: MonotonicTime) -> MonotonicTime? {
        guard rate > 0 else { return now }
        let waiting = backlog(at: now)
        if waiting > 0 && waiting + Int64(size) > queueLimit { return nil }
        let transmission = TimeSpan(nanoseconds: UInt64(size) * 1_000_000_000 / UInt64(rate))
        busyUntil = max(busyUntil, now) + transmission
        return busyUntil
    }
}
