/// Shorthands for the account messages of PROTOCOL.md section 7.
extension ChatMessage {
    /// Registers the current nick as an account; `password` may be nil when the connection
    /// presented a client certificate (then the certificate alone is the credential).
    public static func register(password: String?) -> ChatMessage {
        ChatMessage(type: MessageType.register.rawValue, password: password)
    }

    /// Logs in after the hello and takes the account's nick. Without a password the connection's
    /// certificate must be bound to the account.
    public static func login(account: String, password: String?) -> ChatMessage {
        ChatMessage(type: MessageType.login.rawValue, sender: account, password: password)
    }

    /// Changes the password of the account this connection is logged in as; `old` is its current
    /// password (nil on a connection whose certificate is bound to the account).
    public static func changePassword(_ password: String, old: String? = nil) -> ChatMessage {
        ChatMessage(type: MessageType.password.rawValue, password: password, old: old)
    }

    /// Binds (`add`) or unbinds the connection's client certificate to or from its account.
    public static func certificate(add: Bool) -> ChatMessage {
        ChatMessage(type: MessageType.certificate.rawValue, text: add ? "add" : "remove")
    }

    /// The server's answer to `register`, `login`, `password` and `certificate`: `text` says what
    /// happened (`registered`, `logged-in`, `password-changed`, `certificate-added`,
    /// `certificate-removed`).
    public static func accountNotice(nick: String, account: String, text: String) -> ChatMessage {
        ChatMessage(type: MessageType.account.rawValue, text: text, sender: nick, account: account)
    }
}
