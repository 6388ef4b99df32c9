import EventRuntime

/// A span of time, relative to proxy start, during which every packet in both directions is
/// dropped: a tunnel, a dead Wi-Fi, a failover.
public struct BlackholeWindow: Sendable, Equatable, CustomStringConvertible {
    public var start: TimeSpan
    public var duration: TimeSpan

    public init(start: TimeSpan, duration: TimeSpan) {
        self.start = start
        self.duration = duration
    }

    public var end: TimeSpan { start + duration }

    public func contains(_ elapsed: TimeSpan) -> Bool { elapsed >= start && elapsed < end }

    public var description: String { "\(start.seconds)s+\(duration.seconds)s" }
}
