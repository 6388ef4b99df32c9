/// A span of time in nanoseconds, as ``MonotonicTime`` counts it.
public struct TimeSpan: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    @inlinable
    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    @inlinable public static func milliseconds(_ value: UInt64) -> TimeSpan { TimeSpan(nanoseconds: value * 1_000_000) }
    @inlinable public static func microseconds(_ value: UInt64) -> TimeSpan { TimeSpan(nanoseconds: value * 1_000) }
    @inlinable public static func seconds(_ value: UInt64) -> TimeSpan { TimeSpan(nanoseconds: value * 1_000_000_000) }
    public static let zero = TimeSpan(nanoseconds: 0)

    @inlinable
    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    @inlinable
    public static func * (lhs: TimeSpan, rhs: UInt64) -> TimeSpan { TimeSpan(nanoseconds: lhs.nanoseconds &* rhs) }
    @inlinable
    public static func + (lhs: TimeSpan, rhs: TimeSpan) -> TimeSpan {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        return TimeSpan(nanoseconds: overflow ? .max : sum)
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var milliseconds: Double { Double(nanoseconds) / 1e6 }
    public var description: String { "\(milliseconds)ms" }
}
