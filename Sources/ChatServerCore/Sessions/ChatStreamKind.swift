/// The two client-opened bidirectional streams of PROTOCOL.md section 2.
public enum ChatStreamKind: Sendable, Hashable {
    /// Stream 0: join, msg, dm, nick, part, history and the server's replies and room events.
    case chat
    /// Stream 4: status, roster and the typing fallback.
    case presence
}
