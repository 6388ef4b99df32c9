/// Counts of nanosecond values in log-linear buckets (the HDR histogram layout): exact below
/// 128 ns, then every power of two split into 128 equal buckets, so a bucket is at most 1/128 of
/// its lower bound wide. Percentiles report a bucket's midpoint: within 0.4% of every value in
/// it, well inside the 1% the load report promises. Fixed size (7,424 counters), O(1) record.
struct LatencyHistogram: Sendable {
    static let subBucketBits = 7
    static let subBucketCount = 1 << subBucketBits
    static let bucketCount = subBucketCount + (64 - subBucketBits) * subBucketCount

    private var counts: [UInt64]
    private(set) var count: UInt64 = 0
    private(set) var minimum = UInt64.max
    private(set) var maximum: UInt64 = 0
    private var total: Double = 0

    init() { counts = [UInt64](repeating: 0, count: LatencyHistogram.bucketCount) }

    var isEmpty: Bool { count == 0 }
    var mean: Double { count == 0 ? 0 : total / Double(count) }

    mutating func record(_ value: UInt64) {
        counts[LatencyHistogram.index(of: value)] += 1
        count += 1
        total += Double(value)
        minimum = Swift.min(minimum, value)
        maximum = Swift.max(maximum, value)
    }

    mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for index in counts.indices where other.counts[index] > 0 { counts[index] += other.counts[index] }
        count += other.count
        total += other.total
        minimum = Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
    }

    mutating func reset() { self = LatencyHistogram() }

    /// The smallest value with at least `percent`% of the values at or below it, as the midpoint
    /// of its bucket (kept within the exact minimum and maximum). 0 when empty.
    func percentile(_ percent: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        if percent >= 100 { return maximum }
        let rank = Swift.max(1, UInt64((percent / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank {
                let (lower, width) = LatencyHistogram.bounds(of: index)
                return Swift.min(Swift.max(lower + (width - 1) / 2, minimum), maximum)
            }
        }
        return maximum
    }

    static func index(of value: UInt64) -> Int {
        guard value >= UInt64(subBucketCount) else { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount
        let shift = exponent - subBucketBits
        let sub = Int(value >> UInt64(shift)) - subBucketCount
        return subBucketCount + shift * subBucketCount + sub
    }

    /// The lowest value of bucket `index` and how many values it spans.
    static func bounds(of index: Int) -> (lower: UInt64, width: UInt64) {
        guard index >= subBucketCount else { return (UInt64(index), 1) }
        let shift = (index - subBucketCount) / subBucketCount
        let sub = (index - subBucketCount) % subBucketCount
        return (UInt64(subBucketCount + sub) << UInt64(shift), 1 << UInt64(shift))
    }
}
