/// An upload whose bytes are not all in yet (PROTOCOL.md section 9, resume): its header, kept
/// with the bytes received so far (in a partial file named by `key`) for at least an hour after
/// it was interrupted, keyed by the uploader's peer id and the upload's `id`.
public struct PartialUpload: Sendable, Equatable, Hashable {
    /// Names the partial file: random, so no peer id (a credential) ever appears in a path.
    public var key: String
    public var peer: String
    public var id: String
    public var owner: String
    /// The uploader's address as limits count it (``ClientSession/address``); empty for an exempt one.
    public var address: String
    public var room: String?
    public var recipient: String?
    public var name: String
    public var size: Int64
    public var sha256: String
    /// Last time bytes were added or the upload was interrupted, Unix milliseconds.
    public var updated: Int64
    /// The bytes it counts against quotas and `--files-max-bytes`: its declared size while it is
    /// being received (what it may still write is already spoken for), the bytes its partial file
    /// holds once it was interrupted.
    public var charged: Int64

    public init(key: String, peer: String, id: String, owner: String, address: String = "", room: String?, recipient: String?,
                name: String, size: Int64, sha256: String, updated: Int64, charged: Int64? = nil) {
        self.key = key
        self.peer = peer
        self.id = id
        self.owner = owner
        self.address = address
        self.room = room
        self.recipient = recipient
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.updated = updated
        self.charged = charged ?? size
    }

    /// The same file to the same place: a resume may continue it.
    func describesSameUpload(as other: PartialUpload) -> Bool {
        room == other.room && recipient?.lowercased() == other.recipient?.lowercased() && name == other.name && size == other.size
            && sha256 == other.sha256
    }

    /// Whether it counts toward what `scope` holds.
    func belongs(to scope: FileScope) -> Bool {
        switch scope {
        case .everyone: true
        case .owner(let owner): self.owner == owner
        case .address(let address): self.address == address
        }
    }
}
