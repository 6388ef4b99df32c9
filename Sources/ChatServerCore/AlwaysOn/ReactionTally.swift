import ChatProtocol

/// The reactions on one message (PROTOCOL.md section 15): each value (an emoji, `+1`) with the
/// users who gave it, at most one of each value per user, at most
/// ``ChatLimits/maxDistinctReactions`` values. Built from the message's `react` and `unreact`
/// events in seq order, it tells whether the next one makes an event at all.
public struct ReactionTally: Sendable, Equatable {
    /// What a `react` or `unreact` does: a new event, or none (acknowledged without a seq), or an
    /// error.
    public enum Outcome: Sendable, Equatable {
        /// The value is added (or taken back): an event is stored and sent.
        case changed
        /// Already given (a `react`), or not given (an `unreact`): nothing is stored.
        case unchanged
        /// A new value beyond the distinct values allowed: `bad-field`.
        case tooManyValues
    }

    /// Values in the order first given, with who gave them (user keys).
    private var values: [(value: String, users: Set<String>)] = []

    public init() {}

    /// The tally after these events, oldest first (other kinds are skipped).
    public init(replaying events: [StoredEvent]) {
        for event in events {
            let user = Self.userKey(account: event.account, nick: event.sender)
            if event.kind == .react { _ = react(event.text, by: user) } else if event.kind == .unreact { _ = unreact(event.text, by: user) }
        }
    }

    /// Who reacts, as the tally tells users apart: an account by its key; a guest, whose events
    /// name no account, by its nick (`~` first: never an account's key).
    public static func userKey(account: String?, nick: String) -> String {
        account.map(ChatValidation.nickKey) ?? "~" + ChatValidation.nickKey(nick)
    }

    public mutating func react(_ value: String, by user: String) -> Outcome {
        if let index = values.firstIndex(where: { $0.value == value }) {
            return values[index].users.insert(user).inserted ? .changed : .unchanged
        }
        guard values.count < ChatLimits.maxDistinctReactions else { return .tooManyValues }
        values.append((value, [user]))
        return .changed
    }

    public mutating func unreact(_ value: String, by user: String) -> Outcome {
        guard let index = values.firstIndex(where: { $0.value == value }), values[index].users.remove(user) != nil else {
            return .unchanged
        }
        // A value nobody gives any more frees its place among the distinct values.
        if values[index].users.isEmpty { values.remove(at: index) }
        return .changed
    }

    /// Each value given, in the order first given, with how many users give it.
    public var counts: [(value: String, count: Int)] { values.map { ($0.value, $0.users.count) } }

    public static func == (lhs: ReactionTally, rhs: ReactionTally) -> Bool {
        lhs.values.map(\.value) == rhs.values.map(\.value) && lhs.values.map(\.users) == rhs.values.map(\.users)
    }
}
