/// What the account store said about a name.
enum AccountLookup {
    case found(StoredAccount)
    /// No such account, or a name that cannot be one.
    case none
    /// The store could not be read; the request has been answered `unavailable`.
    case unreadable

    var account: StoredAccount? {
        if case .found(let account) = self { account } else { nil }
    }
}
