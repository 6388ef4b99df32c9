@testable import ChatBot
import Glibc
import Testing
import SplitMix

/// The load report's histogram: its relative error bound and its percentiles.
@Suite("latency histogram")
struct LatencyHistogramTests {
    /// Any single value, from nanoseconds to hours, comes back within 1% (the bucket midpoint).
    @Test func everyValueWithinOnePercent() {
        var generator = SplitMix64(seed: 7)
        var values: [UInt64] = Array(0...300)
        for exponent in 8..<44 {
            for _ in 0..<200 { values.append(UInt64.random(in: (1 << (exponent - 1))...(1 << exponent), using: &generator)) }
        }
        values.append(UInt64.max / 2)
        for value in values {
            var histogram = LatencyHistogram()
            histogram.record(value)
            histogram.record(value)
            // Two equal values: the minimum/maximum clamp cannot hide the bucket's error.
            let reported = LatencyHistogram.bounds(of: LatencyHistogram.index(of: value))
            let midpoint = reported.lower + (reported.width - 1) / 2
            #expect(value >= reported.lower && value - reported.lower < reported.width)
            #expect(relativeError(midpoint, value) <= 0.01, "\(value) -> \(midpoint)")
            #expect(histogram.percentile(50) == value, "min and max clamp a single value exactly")
        }
    }

    /// On known distributions (uniform, exponential, and a bimodal one with a slow tail) every
    /// reported percentile is within 1% of the exact one from the sorted values.
    @Test(arguments: ["uniform", "exponential", "bimodal"])
    func percentilesMatchExactQuantiles(_ shape: String) {
        var generator = SplitMix64(seed: 42)
        var values: [UInt64] = []
        for index in 0..<200_000 {
            let unit = Double(generator.next() >> 11) / Double(1 << 53)
            switch shape {
            case "uniform": values.append(UInt64(1_000 + unit * 9_999_000))
            case "exponential": values.append(UInt64(-log(1 - unit) * 2_000_000) + 1)
            default: values.append(index % 100 == 0 ? UInt64(50_000_000 + unit * 1e8) : UInt64(300_000 + unit * 200_000))
            }
        }
        var histogram = LatencyHistogram()
        for value in values { histogram.record(value) }
        let sorted = values.sorted()
        for percent in [50.0, 90, 99, 99.9] {
            let exact = sorted[Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1]
            let reported = histogram.percentile(percent)
            #expect(relativeError(reported, exact) <= 0.01, "p\(percent): \(reported) vs \(exact)")
        }
        #expect(histogram.percentile(100) == sorted.last && histogram.maximum == sorted.last)
        #expect(histogram.minimum == sorted.first && histogram.count == UInt64(values.count))
    }

    /// Percentiles walk the counts: with 1...100 recorded, p50 is 50 and p99 is 99; merging two
    /// halves gives the same answers as recording everything in one.
    @Test func percentilesAndMerge() {
        var whole = LatencyHistogram()
        var low = LatencyHistogram()
        var high = LatencyHistogram()
        for value in UInt64(1)...100 {
            whole.record(value)
            if value <= 50 { low.record(value) } else { high.record(value) }
        }
        #expect(whole.percentile(50) == 50 && whole.percentile(99) == 99 && whole.percentile(99.9) == 100)
        #expect(whole.percentile(0) == 1 && whole.mean == 50.5)
        low.merge(high)
        for percent in [1.0, 25, 50, 75, 90, 99, 100] { #expect(low.percentile(percent) == whole.percentile(percent)) }
        #expect(LatencyHistogram().percentile(99) == 0)
    }

    private func relativeError(_ reported: UInt64, _ exact: UInt64) -> Double {
        exact == 0 ? Double(reported) : abs(Double(reported) - Double(exact)) / Double(exact)
    }
}
