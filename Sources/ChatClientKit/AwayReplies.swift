import ChatProtocol

/// While the person is away (`/away REASON`), a private message gets an answer saying so, once an
/// hour per correspondent, as an action (`* bob is away: lunch`), which is never answered in turn
/// (issue 24, habits; a version 1.1 server keeps no reason itself). At most ``limit``
/// correspondents are remembered; the oldest are forgotten first.
public struct AwayReplies: Sendable {
    public static let interval: Int64 = 3_600_000
    public static let limit = 1_000
    /// When each correspondent (nick key) was last answered, Unix milliseconds.
    private var answered: [String: Int64] = [:]

    public init() {}

    /// The `dm` to send for `message` (nil: none). `reason` nil: not away.
    public mutating func reply(to message: ChatMessage, reason: String?, ownNick: String, now: Int64) -> ChatMessage? {
        guard let reason, message.messageType == .dm, message.replay != true else { return nil }
        let key = ChatValidation.nickKey(message.sender)
        guard key != ChatValidation.nickKey(ownNick), !Self.isReply(message.text) else { return nil }
        if let last = answered[key], now - last < Self.interval { return nil }
        if answered.count >= Self.limit { answered = answered.filter { now - $0.value < Self.interval } }
        guard answered.count < Self.limit else { return nil }
        answered[key] = now
        return .dm(to: message.sender, text: ChatAction.text(for: reason.isEmpty ? "is away" : "is away: \(reason)"),
                   id: ChatSession.randomPeerID())
    }

    /// Whether a text is such an answer (two away clients never answer each other's).
    static func isReply(_ text: String) -> Bool {
        ChatAction.body(of: text).map { $0 == "is away" || $0.hasPrefix("is away: ") } ?? false
    }
}
