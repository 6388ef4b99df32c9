/// Rooms that have no members but whose seq (and, without `--db`, history) the server still
/// holds in memory, longest idle first, so that the oldest can be forgotten once there are more
/// than the configured number (the core's, and the local store adapter's).
public struct IdleRooms {
    /// Idle room → the stamp of its entry in `order`.
    private var stamps: [String: UInt64] = [:]
    /// Rooms in the order they went idle; an entry whose stamp no longer matches is stale (the
    /// room got members again, or went idle again later).
    private var order: [(room: String, stamp: UInt64)] = []
    private var head = 0
    private var nextStamp: UInt64 = 0

    public init() {}

    public var count: Int { stamps.count }

    public func contains(_ room: String) -> Bool { stamps[room] != nil }

    public mutating func insert(_ room: String) {
        nextStamp += 1
        stamps[room] = nextStamp
        order.append((room, nextStamp))
        compactIfSparse()
    }

    public mutating func remove(_ room: String) {
        stamps[room] = nil
        compactIfSparse()
    }

    /// Forgets and returns the room that has been idle longest.
    public mutating func popOldest() -> String? {
        while head < order.count {
            let entry = order[head]
            head += 1
            if stamps[entry.room] == entry.stamp {
                stamps[entry.room] = nil
                return entry.room
            }
        }
        return nil
    }

    /// Drops stale entries once they outnumber the live ones: amortised O(1) per change.
    private mutating func compactIfSparse() {
        guard order.count - head > 2 * stamps.count + 16 else { return }
        order = order[head...].filter { stamps[$0.room] == $0.stamp }
        head = 0
    }
}
