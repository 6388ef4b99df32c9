/// An upload the core accepted: the glue writes the stream's body, hashing it, into the partial
/// file `partialKey` off the event loop, and reports the end with
/// ``ChatServerState/uploadEnded(_:_:now:)``.
public struct UploadJob: Sendable, Equatable {
    /// Names the partial file (random hex: never a peer id, never a name from the network).
    public let partialKey: String
    /// The file's size and SHA-256 as the header declared them.
    public let size: Int64
    public let sha256: String
    /// The stream's body is bytes `offset` to `size` of the file.
    public let offset: Int64
    /// True when the partial file must already hold exactly `offset` bytes (a resume; the hash
    /// of those bytes is read back from it); false for a new upload, which starts the partial
    /// file empty.
    public let resumes: Bool
    /// Free disk the writing leaves for chat, history and accounts (`--disk-reserve`): it stops
    /// with ``UploadOutcome/lowOnDisk(held:)`` rather than take the disk below this.
    public let keepFree: Int64

    public init(partialKey: String, size: Int64, sha256: String, offset: Int64, resumes: Bool, keepFree: Int64 = 0) {
        self.partialKey = partialKey
        self.size = size
        self.sha256 = sha256
        self.offset = offset
        self.resumes = resumes
        self.keepFree = keepFree
    }
}
