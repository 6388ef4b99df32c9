/// `/me` actions (docs/PROTOCOL.md section 6): an action travels as an ordinary `msg` or `dm`
/// whose text starts with `/me ` (slash, `me`, one space). A client that knows the convention shows
/// `* alice waves`; a version 1 client shows `<alice> /me waves`, which reads the same to anyone
/// who has used IRC. No field is added, so every server relays, stores and replays it unchanged.
public enum ChatAction {
    public static let prefix = "/me "

    /// The text that sends `action` ("waves" becomes "/me waves").
    public static func text(for action: String) -> String { prefix + action }

    /// What the action says, or nil when the text is not an action.
    public static func body(of text: String) -> String? {
        guard text.hasPrefix(prefix) else { return nil }
        let body = text.dropFirst(prefix.count)
        return body.isEmpty ? nil : String(body)
    }
}
