/// A map that keeps at most `limit` entries, forgetting the oldest inserted first: the receipts a
/// store keeps for resends (``InMemoryHistoryStore``, the local store's memory of them).
public struct OldestFirstMap<Key: Hashable, Value> {
    public let limit: Int
    private var entries: [Key: Value] = [:]
    /// Keys in insertion order from `orderStart` on, for forgetting the oldest.
    private var order: [Key] = []
    private var orderStart = 0

    public init(limit: Int) {
        precondition(limit >= 1, "a bounded map keeps at least one entry")
        self.limit = limit
    }

    public subscript(key: Key) -> Value? { entries[key] }

    public var count: Int { entries.count }

    /// Sets `key`'s value; a new key is the newest, and the oldest go beyond the limit.
    public mutating func remember(_ value: Value, forKey key: Key) {
        if entries.updateValue(value, forKey: key) == nil {
            order.append(key)
        }
        while entries.count > limit {
            entries[order[orderStart]] = nil
            orderStart += 1
        }
        // Compact once the forgotten prefix is as long as the live part: amortised O(1).
        if orderStart > 0, orderStart >= order.count - orderStart {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }

    /// Removes `key`'s value (its place in the order goes when the oldest are forgotten).
    public mutating func forget(_ key: Key) {
        entries[key] = nil
    }
}
