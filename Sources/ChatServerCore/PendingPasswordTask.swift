import ChatProtocol

/// A password task the glue has not answered yet, and what to do with its result.
struct PendingPasswordTask {
    enum Purpose {
        /// A hello whose `join` carried the password of the registered account it names.
        case hello(join: ChatMessage, account: StoredAccount)
        /// `login` after the hello.
        case login(request: ChatMessage, account: StoredAccount)
        /// `register` of the nick the connection held when it asked.
        case register(request: ChatMessage, nick: String)
        /// `password` of the account the connection is logged in as.
        case changePassword(request: ChatMessage, account: String)
    }

    let client: ClientID
    let purpose: Purpose
}
