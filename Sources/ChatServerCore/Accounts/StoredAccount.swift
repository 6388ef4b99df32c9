/// A registered account as the account store keeps it (PROTOCOL.md section 7).
public struct StoredAccount: Sendable, Equatable, Hashable {
    /// The name as it was registered (the nick at that moment); compared case-insensitively.
    public var name: String
    /// The argon2id hash in its encoded form (`$argon2id$v=19$m=...`); nil for an account whose
    /// only credential is a client certificate.
    public var passwordHash: String?
    /// Unix milliseconds of the registration.
    public var created: Int64

    public init(name: String, passwordHash: String?, created: Int64) {
        self.name = name
        self.passwordHash = passwordHash
        self.created = created
    }
}
