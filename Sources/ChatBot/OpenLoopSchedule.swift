import Glibc
import QuicEngine
import SplitMix

/// Intended send times of an open-loop load: fixed in advance from the rate alone, never from
/// when earlier sends actually happened, so a stalled sender or server cannot make the load
/// back off and hide its own latency (no coordinated omission). A late sender sends everything
/// that has fallen due at once, each message keeping its intended time.
struct OpenLoopSchedule: Sendable {
    enum Arrivals: String, Sendable, CaseIterable {
        /// Evenly spaced: the k-th message is due at start + k / rate.
        case uniform
        /// A Poisson process: exponentially distributed gaps with mean 1 / rate, from a seed.
        case poisson
    }

    let start: MonotonicTime
    let end: MonotonicTime
    let rate: Double
    let arrivals: Arrivals
    private var generator: SplitMix64
    /// How many intended times have been handed out.
    private(set) var issued = 0
    /// The intended time of the next message; nil once it would fall at or after `end`.
    private(set) var nextDue: MonotonicTime?

    /// A schedule over [start, end); a rate of 0 schedules nothing.
    init(start: MonotonicTime, end: MonotonicTime, rate: Double, arrivals: Arrivals = .uniform, seed: UInt64 = 1) {
        self.start = start
        self.end = end
        self.rate = rate
        self.arrivals = arrivals
        generator = SplitMix64(seed: seed)
        nextDue = nil
        if rate > 0 { nextDue = intendedTime(after: nil) }
    }

    /// The next intended time if it is due by `now` (the caller sends that message), else nil.
    mutating func takeDue(by now: MonotonicTime) -> MonotonicTime? {
        guard let due = nextDue, due <= now else { return nil }
        issued += 1
        nextDue = intendedTime(after: due)
        return due
    }

    private mutating func intendedTime(after previous: MonotonicTime?) -> MonotonicTime? {
        let nanoseconds: Double
        switch arrivals {
        case .uniform:
            // From the index, not by adding gaps: no rounding drift over millions of messages.
            nanoseconds = Double(issued) * 1e9 / rate
        case .poisson:
            let unit = Double(generator.next() >> 11) / Double(1 << 53)
            let gap = -log(1 - unit) * 1e9 / rate
            nanoseconds = Double((previous ?? start).nanoseconds - start.nanoseconds) + gap
        }
        let due = start + TimeSpan(nanoseconds: UInt64(nanoseconds.rounded()))
        return due < end ? due : nil
    }
}
