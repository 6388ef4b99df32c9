import Glibc

/// A point on a monotonic clock in nanoseconds. The engine never reads a clock itself: callers pass
/// `now` in, so tests can drive it with a virtual clock.
public struct QuicTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The real monotonic clock, for the I/O driver and the applications around the engine.
    public static func now() -> QuicTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return QuicTime(nanoseconds: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
    }

    public static func < (lhs: QuicTime, rhs: QuicTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func + (lhs: QuicTime, rhs: QuicDuration) -> QuicTime {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        return QuicTime(nanoseconds: overflow ? .max : sum)
    }

    public static func - (lhs: QuicTime, rhs: QuicTime) -> QuicDuration {
        QuicDuration(nanoseconds: lhs.nanoseconds >= rhs.nanoseconds ? lhs.nanoseconds - rhs.nanoseconds : 0)
    }

    public var description: String { "\(Double(nanoseconds) / 1e9)s" }
}

/// A span of time in nanoseconds.
public struct QuicDuration: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    public static func milliseconds(_ value: UInt64) -> QuicDuration { QuicDuration(nanoseconds: value * 1_000_000) }
    public static func microseconds(_ value: UInt64) -> QuicDuration { QuicDuration(nanoseconds: value * 1_000) }
    public static func seconds(_ value: UInt64) -> QuicDuration { QuicDuration(nanoseconds: value * 1_000_000_000) }
    public static let zero = QuicDuration(nanoseconds: 0)

    public static func < (lhs: QuicDuration, rhs: QuicDuration) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func * (lhs: QuicDuration, rhs: UInt64) -> QuicDuration { QuicDuration(nanoseconds: lhs.nanoseconds &* rhs) }
    public static func + (lhs: QuicDuration, rhs: QuicDuration) -> QuicDuration {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        return QuicDuration(nanoseconds: overflow ? .max : sum)
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var milliseconds: Double { Double(nanoseconds) / 1e6 }
    public var description: String { "\(milliseconds)ms" }
}
