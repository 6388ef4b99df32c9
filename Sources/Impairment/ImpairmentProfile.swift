import EventRuntime

/// What happens to packets in one direction. All zero: a transparent relay.
public struct ImpairmentProfile: Sendable, Equatable {
    /// Chance that a packet is dropped on arrival.
    public var lossProbability: Double = 0
    /// Fixed one-way delay added to every packet.
    public var delay = TimeSpan.zero
    /// Each packet's delay is `delay` plus a uniform draw in [-jitter, +jitter] (clamped at 0).
    /// Packets are released by their own times, so jitter larger than the gap between packets
    /// reorders them, as on a real multipath network.
    public var jitter = TimeSpan.zero
    /// Chance that a packet is held back by `reorderDelay` on top of its delay, so that packets
    /// sent after it overtake it.
    public var reorderProbability: Double = 0
    public var reorderDelay = TimeSpan.milliseconds(10)
    /// Chance that a packet is sent twice (the copy gets its own delay draw).
    public var duplicateProbability: Double = 0
    /// Chance that a packet copy has `corruptBits` distinct random bits flipped.
    public var corruptProbability: Double = 0
    public var corruptBits: Int = 1
    /// Bottleneck rate in bytes per second; 0 means unlimited.
    public var bandwidth: Int64 = 0
    /// Bytes the bottleneck may hold (including the packet being serialised) before dropping
    /// arrivals; nil means 100 ms worth of `bandwidth`, at least 16 KiB.
    public var queueLimit: Int64?

    public init() {}

    var effectiveQueueLimit: Int64 {
        queueLimit ?? max(bandwidth / 10, 16_384)
    }
}
