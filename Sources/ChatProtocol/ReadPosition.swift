/// Where an account stands in one room or private conversation, as `welcome` lists it
/// (PROTOCOL.md sections 14 and 17): the latest `seq` there, the account's read marker, and how
/// many of the events after the marker are unread messages and mentions of its nick.
public struct ReadPosition: Sendable, Equatable, Hashable {
    /// The latest seq of the room or conversation.
    public var seq: Int64
    /// The account's read marker: the highest seq it has read (0 when never set).
    public var read: Int64
    /// The `msg` and `file` events (in a conversation the `dm`s) after `read` not sent by the account.
    public var unread: Int
    /// Those of them that name the account's nick (in a conversation, every unread `dm`).
    public var mentions: Int

    public init(seq: Int64, read: Int64, unread: Int, mentions: Int) {
        self.seq = seq
        self.read = read
        self.unread = unread
        self.mentions = mentions
    }
}

/// One private conversation in `welcome`'s `conversations`:
/// `{"with":A,"seq":S,"read":R,"unread":U,"mentions":M}` (PROTOCOL.md section 14).
public struct ConversationListing: Sendable, Equatable, Hashable {
    /// The other account.
    public var with: String
    public var position: ReadPosition

    public init(with: String, position: ReadPosition) {
        self.with = with
        self.position = position
    }
}
