/// Slow password work the core hands to the glue (PROTOCOL.md section 7: passwords are kept only
/// as a slow salted hash, which must not stall the event loop): the glue runs it off the loop
/// and hands the result back with ``ChatServerState/passwordTaskFinished(_:_:now:)``.
public struct PasswordTask: Sendable {
    public enum Work: Sendable, Equatable {
        /// Hash a new password (register, password change).
        case hash
        /// Check a password against a stored hash (login).
        case verify(storedHash: String)
        /// Check a password against a hash of nothing (a name that is no account, an account
        /// without a password): the same work as `verify`, with the same parameters as a new
        /// hash, and always `verified(false)`, so neither the answer nor the time it takes tells
        /// a missing account from a wrong password (PROTOCOL.md section 7).
        case decoy
    }

    /// Names the task in its result.
    public let ticket: UInt64
    public let password: String
    public let work: Work

    public init(ticket: UInt64, password: String, work: Work) {
        self.ticket = ticket
        self.password = password
        self.work = work
    }
}

/// What the glue found.
public enum PasswordOutcome: Sendable, Equatable {
    /// The encoded hash of a new password.
    case hashed(String)
    /// Whether the password matched.
    case verified(Bool)
    /// The work failed (out of memory, a stored hash that does not parse): the request is refused.
    case failed(String)

    var isFailure: Bool { if case .failed = self { true } else { false } }
}
