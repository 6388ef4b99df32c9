/// Which room sequence numbers a receiver has had, as bits from a base: one bit per room event
/// after its join, so a million deliveries cost 125 KB, not a million set entries.
struct SeenSet: Sendable {
    private let base: Int64
    private var words: [UInt64] = []
    private(set) var count = 0

    /// Numbers from `base` upwards can be inserted (a receiver's first event after its `joined`).
    init(base: Int64) { self.base = base }

    /// Adds `seq`; false when it was there already (a duplicate) or lies below the base.
    mutating func insert(_ seq: Int64) -> Bool {
        guard seq >= base else { return false }
        let offset = Int(seq - base)
        let word = offset >> 6
        if word >= words.count { words += [UInt64](repeating: 0, count: Swift.max(word + 1 - words.count, words.count)) }
        let bit = UInt64(1) << UInt64(offset & 63)
        guard words[word] & bit == 0 else { return false }
        words[word] |= bit
        count += 1
        return true
    }

    func contains(_ seq: Int64) -> Bool {
        guard seq >= base else { return false }
        let offset = Int(seq - base)
        let word = offset >> 6
        return word < words.count && words[word] & (UInt64(1) << UInt64(offset & 63)) != 0
    }
}
