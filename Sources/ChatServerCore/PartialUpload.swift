/// An upload whose bytes are not all in yet (PROTOCOL.md section 9, resume): its header, kept
/// with the bytes received so far (in a partial file named by `key`) for at least an hour after
/// it was interrupted, keyed by the uploader's peer id and the upload's `id`.
public struct PartialUpload: Sendable, Equatable, Hashable {
    /// Names the partial file: random, so no peer id (a credential) ever appears in a path.
    public var key: String
    public var peer: String
    public var id: String
    public var owner: String
    public var room: String?
    public var recipient: String?
    public var name: String
    public var size: Int64
    public var sha256: String
    /// Last time bytes were added or the upload was interrupted, Unix milliseconds.
    public var updated: Int64

    public init(key: String, peer: String, id: String, owner: String, room: String?, recipient: String?, name: String,
                size: Int64, sha256: String, updated: Int64) {
        self.key = key
        self.peer = peer
        self.id = id
        self.owner = owner
        self.room = room
        self.recipient = recipient
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.updated = updated
    }

    /// The same file to the same place: a resume may continue it.
    func describesSameUpload(as other: PartialUpload) -> Bool {
        room == other.room && recipient?.lowercased() == other.recipient?.lowercased() && name == other.name && size == other.size
            && sha256 == other.sha256
    }
}
