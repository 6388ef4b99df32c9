import ChatProtocol

/// A password task the core has taken on and not finished, and what to do with its result.
struct PendingPasswordTask {
    enum Purpose {
        /// A hello whose `join` carried the password of the registered account it names.
        case hello(join: ChatMessage, account: StoredAccount)
        /// `login` after the hello; nil for a name that is no account (checked against the decoy).
        case login(request: ChatMessage, account: StoredAccount?)
        /// `register` of the nick the connection held when it asked.
        case register(request: ChatMessage, nick: String)
        /// `password` of the account the connection is logged in as.
        case changePassword(request: ChatMessage, account: String)
        /// The current password (`old`) of a `password` request, checked before the new one is
        /// hashed (nil: an account that could not be read, checked against the decoy).
        case verifyOldPassword(request: ChatMessage, account: StoredAccount?)
    }

    let client: ClientID
    let purpose: Purpose
    /// The work, handed to the glue when it is this task's turn.
    let task: PasswordTask
    /// Where it waits for its turn: its lane, and the key whose turn it takes (the client's
    /// address; for a shared one, the account).
    let lane: PasswordQueue.Lane
    let key: String
    /// For a login: the attempt the wrong-password limit counts.
    var attempt: LoginAttempt?
    /// The attempt is counted (reserved): it must be taken back unless its password was wrong.
    var isReserved = false
    /// In the queue, waiting for a worker.
    var isWaiting = false
    /// Handed to the glue: its result will come, whatever happens to the client.
    var isRunning = false

    /// The request the task answers.
    var request: ChatMessage {
        switch purpose {
        case .hello(let join, _): join
        case .login(let request, _), .register(let request, _), .changePassword(let request, _), .verifyOldPassword(let request, _):
            request
        }
    }
}
