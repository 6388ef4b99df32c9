/// Slow password work the core hands to the glue (PROTOCOL.md section 7: passwords are kept only
/// as a slow salted hash, which must not stall the event loop): the glue runs it off the loop
/// and hands the result back with ``ChatServerState/passwordTaskFinished(_:_:now:)``.
public struct PasswordTask: Sendable {
    public enum Work: Sendable, Equatable {
        /// Hash a new password (register, password change).
        case hash
        /// Check a password against a stored hash (login).
        case verify(storedHash: String)
    }

    /// Names the task in its result.
    public let ticket: UInt64
    public let password: String
    public let work: Work
}

/// What the glue found.
public enum PasswordOutcome: Sendable, Equatable {
    /// The encoded hash of a new password.
    case hashed(String)
    /// Whether the password matched.
    case verified(Bool)
    /// The work failed (out of memory, a stored hash that does not parse): the request is refused.
    case failed(String)
}
