/// Counters for one direction. Every received packet, and every duplicate made, ends up in
/// exactly one of forwarded, dropped (by cause) or queued:
/// `receivedPackets + duplicated == forwardedPackets + droppedPackets + queuedPackets`.
public struct DirectionStatistics: Sendable, Equatable {
    public var receivedPackets = 0
    public var receivedBytes = 0
    public var forwardedPackets = 0
    public var forwardedBytes = 0
    public var droppedByLoss = 0
    /// Arrived, or was due to leave, during a blackhole window.
    public var droppedByBlackhole = 0
    /// Did not fit the bandwidth cap's queue.
    public var droppedByQueueOverflow = 0
    /// The kernel refused the send (socket buffer full), or no upstream socket could be opened.
    public var droppedBySendError = 0
    /// Down only: arrived on an upstream socket from an address other than the server.
    public var droppedFromUnknownSource = 0
    /// Extra copies made (each then forwarded, dropped or queued on its own).
    public var duplicated = 0
    public var corrupted = 0
    /// Held back by the reorder delay.
    public var reordered = 0
    /// In the timer heap now, waiting for their delay or bandwidth slot.
    public var queuedPackets = 0
    public var queuedBytes = 0

    public init() {}

    public var droppedPackets: Int {
        droppedByLoss + droppedByBlackhole + droppedByQueueOverflow + droppedBySendError + droppedFromUnknownSource
    }
}
