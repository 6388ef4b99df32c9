import ChatProtocol

/// Room names and nicks as people type them, checked against the protocol's rules before anything
/// is sent: one reading for the command line, the configuration file and every `/command`.
public enum TypedName {
    /// A room name as people type it (`#dev` is dev), or why it cannot be one.
    public static func room(_ typed: String) -> Result<String, CommandError> {
        let bare = typed.hasPrefix("#") ? String(typed.dropFirst()) : typed
        guard let room = ChatValidation.normalizeRoom(bare) else {
            return .failure(.message("'\(typed)' is not a valid room name: 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit"))
        }
        return .success(room)
    }

    /// Why a nick cannot be used, or nil when it can.
    public static func nickProblem(_ nick: String) -> String? {
        ChatValidation.isValidNick(nick) ? nil
            : "'\(nick)' is not a valid nick: 1 to 24 letters, digits, _ or -, starting with a letter"
    }
}
