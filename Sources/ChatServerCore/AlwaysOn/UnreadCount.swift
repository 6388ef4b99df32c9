import ChatProtocol

/// `unread` and `mentions` of one room or conversation in `welcome` (PROTOCOL.md section 17,
/// "`welcome` counts").
public struct UnreadCount: Sendable, Equatable {
    public var unread: Int
    public var mentions: Int

    public init(unread: Int = 0, mentions: Int = 0) {
        self.unread = unread
        self.mentions = mentions
    }

    /// The counts over `events` (any order, any kinds) for the account `account` known as `nick`,
    /// whose marker is at `read`: the messages (`msg`, `file`; in a conversation its `dm`s, stored
    /// as messages) after `read` that the account did not send; `mentions`, those of them whose
    /// text names `nick` (``ChatValidation/mentions(_:nick:)``), or in a conversation each of them.
    ///
    /// Where the contract is silent (docs/PROTOCOL.md): a redacted message counts in neither (there
    /// is nothing left to read), and a message an edit made name the nick is a mention (its text
    /// as stored is the latest).
    public static func counting(_ events: [StoredEvent], after read: Int64, account: String, nick: String,
                                inConversation: Bool) -> UnreadCount {
        let own = ChatValidation.nickKey(account)
        var count = UnreadCount()
        for event in events where event.seq > read && event.kind.isMessage && !event.redacted {
            guard event.account.map(ChatValidation.nickKey) != own else { continue }
            count.unread += 1
            if inConversation || ChatValidation.mentions(event.text, nick: nick) { count.mentions += 1 }
        }
        return count
    }
}
