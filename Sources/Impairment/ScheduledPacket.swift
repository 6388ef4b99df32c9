/// A packet copy waiting in the timer heap for its release time.
struct ScheduledPacket {
    var direction: TrafficDirection
    /// Index into the loop's client table; clients are never removed, so it stays valid, and the
    /// socket is looked up at release so a rebind in between applies to queued packets too.
    var clientIndex: Int
    var bytes: [UInt8]
}
