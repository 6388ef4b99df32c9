import Glibc

/// A point on the monotonic clock in nanoseconds: the one time type of the tree. The sans-IO
/// engine never reads a clock itself (callers pass `now` in, so tests drive it with a virtual
/// clock); the event loop, the drivers and the applications read it with ``now()``.
public struct MonotonicTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    @inlinable
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// CLOCK_MONOTONIC: immune to steps of the wall clock.
    public static func now() -> MonotonicTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicTime(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    @inlinable
    public static func < (lhs: MonotonicTime, rhs: MonotonicTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    @inlinable
    public static func + (lhs: MonotonicTime, rhs: TimeSpan) -> MonotonicTime {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        return MonotonicTime(nanoseconds: overflow ? .max : sum)
    }

    @inlinable
    public static func += (lhs: inout MonotonicTime, rhs: TimeSpan) { lhs = lhs + rhs }

    /// The span from `rhs` to `lhs`; zero when `rhs` is later.
    @inlinable
    public static func - (lhs: MonotonicTime, rhs: MonotonicTime) -> TimeSpan {
        TimeSpan(nanoseconds: lhs.nanoseconds >= rhs.nanoseconds ? lhs.nanoseconds - rhs.nanoseconds : 0)
    }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}
