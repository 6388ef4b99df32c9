/// The bounds on one Redis connection (docs/RELIABILITY.md, "Redis"). A command over a sending
/// limit fails alone; a reply over a receiving limit ends the connection (its bytes cannot be
/// skipped without parsing them), and every command waiting on it fails.
public struct RedisLimits: Hashable, Sendable {
    /// Commands sent and not yet answered on one connection.
    public var maxPendingCommands: Int
    /// Encoded bytes waiting to be written to one connection.
    public var maxOutboundBytes: Int
    /// Elements of any one array in a reply.
    public var maxReplyElements: Int
    /// Bytes of one reply (strings plus 16 per element), counted while it arrives.
    public var maxReplyBytes: Int
    /// Nesting of arrays in a reply: fixed by hiredis 0.14 (its reader has 9 levels of stack).
    public static let maxReplyDepth = 7

    public init(maxPendingCommands: Int = 65_536, maxOutboundBytes: Int = 64 << 20,
                maxReplyElements: Int = 1 << 20, maxReplyBytes: Int = 64 << 20) {
        self.maxPendingCommands = maxPendingCommands
        self.maxOutboundBytes = maxOutboundBytes
        self.maxReplyElements = maxReplyElements
        self.maxReplyBytes = maxReplyBytes
    }
}
