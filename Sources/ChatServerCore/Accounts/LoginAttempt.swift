/// One password attempt (a hello with a password, a `login`) as the wrong-password limit counts
/// it (PROTOCOL.md section 7): reserved before its hash runs, taken back only when it was right.
/// Or one registration as the limit of accounts registered per address counts it (``Kind``).
public struct LoginAttempt: Sendable, Equatable {
    /// Which limit counts it.
    public enum Kind: Sendable, Equatable {
        /// Wrong passwords per account and per address (`loginFailureLimit`).
        case password
        /// Accounts registered per address (`registrationsPerAddress`): counted before the
        /// password's hash runs, taken back only when nothing was registered for lack of it (the
        /// hash failed, the client left before it ran, the store refused or could not count it).
        case registration
    }

    /// The password task's ticket: names the attempt in the store's answer and its release.
    public let ticket: UInt64
    /// ``ChatValidation/nickKey(_:)`` of the account tried (also of a name that is no account: it
    /// counts the same, so the answers do not tell them apart); nil for a name that cannot be one.
    public let account: String?
    /// The client's address as limits count it; empty for a shared (exempt) one, which only the
    /// account counts.
    public let address: String
    /// When it was counted, on one server (to take that very count back).
    var reservedAt: Int64?
    public let kind: Kind

    public init(ticket: UInt64, account: String?, address: String, kind: Kind = .password) {
        self.ticket = ticket
        self.account = account
        self.address = address
        self.kind = kind
    }
}

/// The shared store's answer to ``ServerAction/reserveLoginAttempt(_:limit:windowMilliseconds:)``.
public enum LoginAttemptReservation: Sendable, Equatable {
    /// Counted: the password may be checked.
    case reserved
    /// The account or the address has had its wrong passwords for the window: `bad-login` at once
    /// (for a registration: the address has registered its accounts for the window, `quota-exceeded`).
    case locked
    /// The store could not be asked: the attempt is refused with `unavailable`, never waved through.
    case unavailable
}
