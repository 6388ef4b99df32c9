/// A span of time, relative to proxy start, during which every packet in both directions is
/// dropped: a tunnel, a dead Wi-Fi, a failover.
public struct BlackholeWindow: Sendable, Equatable, CustomStringConvertible {
    public var start: Nanoseconds
    public var duration: Nanoseconds

    public init(start: Nanoseconds, duration: Nanoseconds) {
        self.start = start
        self.duration = duration
    }

    public var end: Nanoseconds { start + duration }

    public func contains(_ elapsed: Nanoseconds) -> Bool { elapsed >= start && elapsed < end }

    public var description: String { "\(Double(start) / 1e9)s+\(Double(duration) / 1e9)s" }
}
