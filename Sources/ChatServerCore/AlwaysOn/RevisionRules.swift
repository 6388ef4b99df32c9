import ChatProtocol

/// Whether a revision of a stored message is allowed (PROTOCOL.md sections 15 and 17, "Who may"),
/// as a pure rule the room and conversation code both ask. Membership and the flood limit are
/// checked before; this is about the message and its author.
public enum RevisionRules {
    /// Where the message is: a room (and whether the requester is one of its operators), or a
    /// private conversation.
    public enum Place: Sendable, Equatable {
        case room(requesterIsOperator: Bool)
        case conversation
    }

    /// The error that refuses `kind` (an `edit`, `redact`, `react` or `unreact`) of `target` by
    /// `requester`, or nil when it is allowed. `author` is the target's (nil when not known, which
    /// only an operator's redaction passes).
    ///
    /// Where the contract is silent (docs/PROTOCOL.md): a redacted message takes no further
    /// revision (`no-such-message`: what it was is gone), though a reply may still name it.
    public static func refusal(of kind: StoredEventKind, by requester: MessageAuthor, target: StoredEvent?,
                               author: MessageAuthor?, in place: Place) -> ErrorCode? {
        guard let target, target.kind.isMessage, !target.redacted else { return .noSuchMessage }
        let isAuthor = author.map(requester.isSame(as:)) ?? false
        switch kind {
        case .edit:
            return isAuthor ? nil : .notAuthor
        case .redact:
            if isAuthor { return nil }
            if case .room(requesterIsOperator: true) = place { return nil }
            return .notAuthor
        case .react, .unreact:
            return nil
        default:
            return .badField
        }
    }

    /// A reply's `ref`: it must name a message of that room or conversation (a redacted one too).
    public static func replyRefusal(target: StoredEvent?) -> ErrorCode? {
        guard let target, target.kind.isMessage else { return .noSuchMessage }
        return nil
    }
}
