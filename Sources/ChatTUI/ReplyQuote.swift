/// The message a reply answers, as the reply shows it: its author and the start of its text.
public struct ReplyQuote: Sendable, Equatable {
    public var nick: String
    public var excerpt: String

    public init(nick: String, excerpt: String) {
        self.nick = nick
        self.excerpt = excerpt
    }
}
