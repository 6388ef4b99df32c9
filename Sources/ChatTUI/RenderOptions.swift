/// What the renderer needs besides the state: none of it is read from the environment or the
/// clock inside the renderer.
public struct RenderOptions: Sendable, Equatable {
    /// False when `NO_COLOR` is set (or the terminal has no colours): then no colour is ever
    /// emitted; bold and reverse video still are.
    public var colors: Bool
    /// Local time zone offset for `HH:MM` timestamps, e.g. `TimeZone.current.secondsFromGMT()`.
    public var utcOffsetSeconds: Int
    /// Unix milliseconds now, to leave out expired typists.
    public var now: Int64
    /// The member list shows only from this many columns on.
    public var memberListMinimumColumns: Int
    /// How message times are shown (the configuration's `timestamp`).
    public var timestamp: TimestampFormat
    /// `/numbers`: each message shows its number (its seq, which `/edit N` and `/reply N` take).
    public var messageNumbers = false

    public init(colors: Bool = true, utcOffsetSeconds: Int = 0, now: Int64 = 0, memberListMinimumColumns: Int = 60,
                timestamp: TimestampFormat = .minutes) {
        self.timestamp = timestamp
        self.colors = colors
        self.utcOffsetSeconds = utcOffsetSeconds
        self.now = now
        self.memberListMinimumColumns = memberListMinimumColumns
    }
}
