/// One room's events in seq order for one node, without I/O: live events from the room's
/// subscription in, events to fan out locally out, each exactly once and in seq order. A gap (a
/// push lost with a subscription, a reconnect to Redis) makes it ask for a fill from the stream
/// (``RoomEventLog/events(room:after:limit:)``) and hold everything later until the fill closed it.
///
/// Every fill reads from the last delivered seq to the end of the stream, in chunks of at most
/// `fillLimit`: what was buffered meanwhile is in the stream too, so the buffer may be dropped when
/// it outgrows its bounds without losing anything. Events the stream no longer has (trimmed while
/// the node was cut off longer than the history lasts) are reported as `skipped`, the only way
/// anything is not delivered.
public struct RoomSequencer: Sendable {
    public enum Action: Hashable, Sendable {
        /// Fan this event out to the room's local members.
        case deliver(RoomEvent)
        /// Read the room's events after `after`, at most `limit`, and hand them to `filled`
        /// (or call `fillFailed`).
        case fill(after: Int64, limit: Int)
        /// The events after `after` and before `before` are gone from the stream.
        case skipped(after: Int64, before: Int64)
    }

    /// The last seq fanned out; nil until `start`.
    public private(set) var delivered: Int64?
    public let fillLimit: Int
    public let maxBufferedEvents: Int
    public let maxBufferedBytes: Int
    private var buffer: [Int64: RoomEvent] = [:]
    private var bufferedBytes = 0
    /// A fill is wanted: a gap was seen, or the subscription was restored.
    private var needsFill = false
    private var filling = false
    /// Something happened during the fill in flight that it may not cover (a restore).
    private var fillAgain = false

    public init(fillLimit: Int = 1000, maxBufferedEvents: Int = 1000, maxBufferedBytes: Int = 8 << 20) {
        self.fillLimit = max(1, fillLimit)
        self.maxBufferedEvents = max(1, maxBufferedEvents)
        self.maxBufferedBytes = max(1, maxBufferedBytes)
    }

    /// The room's last seq, read after the subscription was first confirmed: delivery starts
    /// after it. Events that arrived before are delivered if they are newer.
    public mutating func start(lastSeq: Int64) -> [Action] {
        delivered = lastSeq
        var actions: [Action] = []
        drain(into: &actions)
        if !buffer.isEmpty || needsFill { actions += requestFill() }
        return actions
    }

    /// A live event from the room's subscription.
    public mutating func receive(_ event: RoomEvent) -> [Action] {
        guard let last = delivered else {
            hold(event)
            return []
        }
        if event.seq <= last { return [] }
        if event.seq == last + 1 {
            var actions: [Action] = [.deliver(event)]
            delivered = event.seq
            drain(into: &actions)
            return actions
        }
        hold(event)
        return filling ? [] : requestFill()
    }

    /// The subscription was confirmed again after it had been lost: events published meanwhile
    /// may be missing, and no later event may come to show it.
    public mutating func restored() -> [Action] {
        if filling { fillAgain = true }
        return requestFill()
    }

    /// A fill's answer: the events after the `after` it asked for, oldest first.
    public mutating func filled(_ events: [RoomEvent], limit: Int) -> [Action] {
        filling = false
        guard var last = delivered else { return [] }
        var actions: [Action] = []
        for event in events where event.seq > last {
            if event.seq > last + 1 { actions.append(.skipped(after: last, before: event.seq)) }
            actions.append(.deliver(event))
            last = event.seq
        }
        delivered = last
        drain(into: &actions)
        if events.count >= limit || fillAgain {
            fillAgain = false
            return actions + requestFill()
        }
        needsFill = false
        // The stream ended before what is buffered: those seqs in between are gone.
        if let next = buffer.keys.min(), next > last + 1 {
            actions.append(.skipped(after: last, before: next))
            delivered = next - 1
            drain(into: &actions)
        }
        return actions
    }

    /// The fill could not be read (Redis unavailable): `retry` asks again, after the owner's
    /// backoff.
    public mutating func fillFailed() { filling = false }

    public mutating func retry() -> [Action] { needsFill ? requestFill() : [] }

    /// Events held back waiting for a gap to close (or for `start`).
    public var bufferedCount: Int { buffer.count }

    private mutating func requestFill() -> [Action] {
        needsFill = true
        guard !filling, let last = delivered else { return [] }
        filling = true
        return [.fill(after: last, limit: fillLimit)]
    }

    private mutating func hold(_ event: RoomEvent) {
        guard buffer[event.seq] == nil else { return }
        buffer[event.seq] = event
        bufferedBytes += event.payload.count
        if buffer.count > maxBufferedEvents || bufferedBytes > maxBufferedBytes {
            // The stream has all of them: the fill brings them back.
            buffer.removeAll()
            bufferedBytes = 0
            needsFill = true
        }
    }

    /// Delivers buffered events that follow `delivered` without a gap, and drops stale ones.
    private mutating func drain(into actions: inout [Action]) {
        guard var last = delivered else { return }
        for seq in buffer.keys where seq <= last { remove(seq) }
        while let next = buffer[last + 1] {
            remove(next.seq)
            actions.append(.deliver(next))
            last = next.seq
        }
        delivered = last
    }

    private mutating func remove(_ seq: Int64) {
        if let event = buffer.removeValue(forKey: seq) { bufferedBytes -= event.payload.count }
    }
}
