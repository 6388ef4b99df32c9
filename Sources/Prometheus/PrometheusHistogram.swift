/// Durations counted into fixed buckets, as a Prometheus histogram exposes them. Observing is
/// a short scan over the bounds and two additions: cheap enough for every message.
public struct PrometheusHistogram: Sendable {
    /// Upper bounds in nanoseconds, ascending.
    let bounds: [UInt64]
    /// Observations per bucket (not cumulative); the last entry counts those above every bound.
    private(set) var bucketCounts: [Int]
    public private(set) var count = 0
    private var sumNanoseconds: UInt64 = 0

    /// From 50 µs to 10 s: a store write on a local disk takes tens of microseconds, a
    /// delivery under load milliseconds.
    public static let latencyBounds: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// `bounds` in seconds, ascending.
    public init(boundsInSeconds bounds: [Double] = PrometheusHistogram.latencyBounds) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bucket bounds must ascend")
        self.bounds = bounds.map { UInt64(($0 * 1e9).rounded()) }
        bucketCounts = [Int](repeating: 0, count: bounds.count + 1)
    }

    /// Counts `times` observations of `nanoseconds` (a delivery to many recipients is many).
    public mutating func observe(nanoseconds: UInt64, times: Int = 1) {
        var index = 0
        while index < bounds.count, nanoseconds > bounds[index] { index += 1 }
        bucketCounts[index] += times
        count += times
        sumNanoseconds &+= nanoseconds &* UInt64(times)
    }

    var boundsInSeconds: [Double] { bounds.map { Double($0) / 1e9 } }

    public var sumInSeconds: Double { Double(sumNanoseconds) / 1e9 }

    /// Observations at or below `seconds` (a bound), for tests and the operator's `stats`.
    public func count(atMost seconds: Double) -> Int {
        let limit = UInt64((seconds * 1e9).rounded())
        var total = 0
        for (index, bound) in bounds.enumerated() where bound <= limit { total += bucketCounts[index] }
        return total
    }
}
