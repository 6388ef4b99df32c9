/// One reaction value on a message and who gave it (PROTOCOL.md section 15: at most one of each
/// value per user).
public struct Reaction: Sendable, Equatable {
    /// The emoji or short text, as sent.
    public var value: String
    /// Lower-cased nicks of those who gave it.
    public var by: Set<String>

    public init(value: String, by: Set<String>) {
        self.value = value
        self.by = by
    }
}
