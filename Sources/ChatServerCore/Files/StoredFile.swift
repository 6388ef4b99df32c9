/// One stored file's record (PROTOCOL.md section 9): what it is, where it was shared, who may
/// download it, whose quota it counts against. Its bytes are the content named by `sha256`,
/// kept once however many files share them.
public struct StoredFile: Sendable, Equatable, Hashable {
    /// The server's opaque id (FID), 32 lowercase hex digits.
    public var id: String
    public var sha256: String
    public var size: Int64
    public var name: String
    /// The room it was shared in, with the seq of its `file` event; nil for a private file.
    public var room: String?
    public var seq: Int64?
    /// When it was stored, Unix milliseconds: the oldest go first under `--files-max-bytes`.
    public var ts: Int64
    /// The uploader: its nick then, account, and peer with the upload's `id` (the receipt that
    /// makes a repeated upload idempotent).
    public var sender: String
    public var senderAccount: String?
    public var uploaderPeer: String
    public var uploadID: String
    /// Whose quota the file counts against (``FileOwner``).
    public var owner: String
    /// The uploader's address as limits count it; empty for an exempt one. Its files count against
    /// the address's quota, and eviction treats them as one party's (``FileOwner/party(owner:address:)``).
    public var address: String
    /// A private file's recipient: its nick then, account and peer; or, for a recipient that was
    /// connected through another node of several, its device (the digest of its peer id) instead.
    public var recipient: String?
    public var recipientAccount: String?
    public var recipientPeer: String?
    public var recipientDevice: String?

    public init(id: String, sha256: String, size: Int64, name: String, room: String?, seq: Int64?, ts: Int64, sender: String,
                senderAccount: String?, uploaderPeer: String, uploadID: String, owner: String, address: String = "", recipient: String? = nil,
                recipientAccount: String? = nil, recipientPeer: String? = nil, recipientDevice: String? = nil) {
        self.id = id
        self.sha256 = sha256
        self.size = size
        self.name = name
        self.room = room
        self.seq = seq
        self.ts = ts
        self.sender = sender
        self.senderAccount = senderAccount
        self.uploaderPeer = uploaderPeer
        self.uploadID = uploadID
        self.owner = owner
        self.address = address
        self.recipient = recipient
        self.recipientAccount = recipientAccount
        self.recipientPeer = recipientPeer
        self.recipientDevice = recipientDevice
    }
}

/// Quota keys: a logged-in uploader's account, a guest's peer id.
public enum FileOwner {
    public static func key(account: String?, peer: String) -> String {
        if let account { return "account:" + account.lowercased() }
        return "peer:" + peer
    }

    /// Whose files eviction weighs together (PROTOCOL.md section 9 notes): everyone uploading from
    /// one address; from an exempt address (empty), an account alone and every guest together
    /// (peer ids cost nothing to make, and such an address cannot tell their holders apart).
    public static func party(owner: String, address: String) -> String {
        if !address.isEmpty { return FileScope.address(address).key }
        return owner.hasPrefix("peer:") ? exemptGuests : owner
    }

    /// The party of the guests of exempt addresses.
    public static let exemptGuests = "guests"
}
