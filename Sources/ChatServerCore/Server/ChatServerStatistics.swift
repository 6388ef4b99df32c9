import ChatProtocol

/// What the core decided since the start that the glue cannot see in its actions: which
/// `error` replies it sent, and the typing it dropped. Plain counters on the core's one thread;
/// the metrics page reads them on demand.
public struct ChatServerStatistics: Sendable {
    /// `error` replies by code (`rate-limited` counts the messages the flood limit dropped).
    public internal(set) var errorsSent: [ErrorCode: Int] = [:]
    /// Typing indicators beyond a client's relay rate, dropped without a word.
    public internal(set) var typingDropped = 0

    public init() {}
}
