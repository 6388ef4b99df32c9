/// Whose stored files and uploads a count covers (PROTOCOL.md section 9 quotas).
public enum FileScope: Sendable, Hashable {
    /// Every file and upload of the server.
    case everyone
    /// One quota owner (``FileOwner``): an account, or a guest's peer id.
    case owner(String)
    /// Everyone uploading from one address, as limits count it (never an exempt one).
    case address(String)

    /// Its name in a shared store; an owner's is the owner key itself (`account:…`, `peer:…`).
    public var key: String {
        switch self {
        case .everyone: "*"
        case .owner(let owner): owner
        case .address(let address): "address:" + address
        }
    }
}
