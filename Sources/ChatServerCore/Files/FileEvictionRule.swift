/// Which stored file goes first when the files pass `--files-max-bytes` (PROTOCOL.md section 9
/// notes): the one description the three catalogs implement, in Swift (``InMemoryFileCatalog``),
/// SQL (the SQLite store's statements) and Lua (the cluster's `FileStoreScripts`), each
/// unit-tested with the same cases (`EvictionCases` in the tests' support).
///
/// 1. Files belong to parties (``FileOwner/party(owner:address:)``): everyone uploading from one
///    address; from an exempt address each account alone and all guests together.
/// 2. The candidate is the oldest file F of the party P holding the most bytes, the uploader's
///    party counting the bytes it adds; among parties holding as much, the one whose oldest file
///    is the oldest.
/// 3. When P is an account of an exempt address, the *newcomers* to F weigh against it as one
///    party: the guests of exempt addresses and every account of an exempt address whose files
///    are all newer than F (an uploading account without files is one). When they hold at least
///    as much as P (each side counting the uploader's bytes if it is theirs), their oldest file
///    goes instead of F. Accounts cost nothing to make (issue 23, finding 7 again): accounts made
///    after a member's file push it out only as guests would, as one party.
public enum FileEvictionRule {
    /// The parties of addresses (``FileScope/address(_:)``): never exempt.
    public static let addressPrefix = FileScope.address("").key

    /// Whether `party` is an account of an exempt address (step 3 applies to its files).
    public static func isExemptAccount(_ party: String) -> Bool {
        !party.hasPrefix(addressPrefix) && party != FileOwner.exemptGuests
    }

    /// Whether `party`, whose oldest file was stored at `since` (nil: it has none), is a newcomer
    /// to a file stored at `ts`.
    public static func isNewcomer(_ party: String, since: Int64?, to ts: Int64) -> Bool {
        if party.hasPrefix(addressPrefix) { return false }
        if party == FileOwner.exemptGuests { return true }
        guard let since else { return true }
        return since > ts
    }
}
