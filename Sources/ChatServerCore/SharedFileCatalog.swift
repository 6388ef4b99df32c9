import ChatProtocol

/// With a shared store (`--cluster`): file records live in Redis, so a file shared through one
/// node can be downloaded through any (the bytes in a `--files` folder the nodes share). The core
/// reads what an upload or download header needs right before handling it (``remember``), so its
/// synchronous checks answer from memory; a record is stored, and the oldest evicted, by an
/// action answered once done. Interrupted uploads stay this node's (`local`): a resume goes to the
/// node that received the bytes.
public final class SharedFileCatalog: FileCatalog {
    /// This node's partial uploads (in its `--db` file, or in memory).
    let local: any FileCatalog
    private var records: [String: StoredFile] = [:]
    /// `PEER\nID` → the file of that upload (nil: known to have none).
    private var uploads: [String: String?] = [:]
    private var owners: [String: Int64] = [:]

    public init(local: any FileCatalog) {
        self.local = local
    }

    /// What a load from the store found, kept for the request about to be handled.
    func remember(_ loaded: LoadedFiles) {
        for file in loaded.files { records[file.id] = file }
        for id in loaded.missingFiles { records[id] = nil }
        for (upload, file) in loaded.uploads { uploads[upload] = file }
        for (owner, bytes) in loaded.ownedBytes { owners[owner] = bytes }
    }

    /// Forgets what the last request needed: the next one reads again (other nodes change it).
    func clear() {
        records = [:]
        uploads = [:]
        owners = [:]
    }

    public static func uploadKey(peer: String, id: String) -> String { peer + "\n" + id }

    private static let notLoaded = HistoryStoreError("file records are read from the shared store before a request needs them")

    // MARK: FileCatalog

    public func file(id: String) throws -> StoredFile? { records[id] }

    public func file(uploadedBy peer: String, id: String) throws -> StoredFile? {
        guard let known = uploads[Self.uploadKey(peer: peer, id: id)] else { throw Self.notLoaded }
        return known.flatMap { records[$0] }
    }

    public func bytesOwned(by owner: String) throws -> Int64 {
        guard let bytes = owners[owner] else { throw Self.notLoaded }
        return bytes
    }

    /// Records and eviction are the store's own (``ServerAction/storeFileRecord(_:_:)``).
    public func storeFile(_ file: StoredFile, event: StoredEvent?, retainPerRoom: Int) throws { throw Self.notLoaded }
    public func storedBytes() throws -> Int64 { throw Self.notLoaded }
    public func hasContent(_ sha256: String) throws -> Bool { throw Self.notLoaded }
    public func oldestFile() throws -> StoredFile? { throw Self.notLoaded }
    public func removeFile(id: String) throws -> Bool { throw Self.notLoaded }

    public func savePartial(_ partial: PartialUpload) throws { try local.savePartial(partial) }
    public func partial(peer: String, id: String) throws -> PartialUpload? { try local.partial(peer: peer, id: id) }
    public func removePartial(key: String) throws { try local.removePartial(key: key) }
    public func partials(updatedBefore ts: Int64) throws -> [PartialUpload] { try local.partials(updatedBefore: ts) }
    public func partialBytes(owner: String?, exceptKey: String?) throws -> Int64 {
        try local.partialBytes(owner: owner, exceptKey: exceptKey)
    }
}

/// File records read from the shared store for one request.
public struct LoadedFiles: Sendable, Equatable {
    public var files: [StoredFile] = []
    /// Ids asked for that have no record.
    public var missingFiles: [String] = []
    /// Uploads asked for (``SharedFileCatalog/uploadKey(peer:id:)``) → the file they made, or nil.
    public var uploads: [String: String?] = [:]
    public var ownedBytes: [String: Int64] = [:]

    public init(files: [StoredFile] = [], missingFiles: [String] = [], uploads: [String: String?] = [:], ownedBytes: [String: Int64] = [:]) {
        self.files = files
        self.missingFiles = missingFiles
        self.uploads = uploads
        self.ownedBytes = ownedBytes
    }
}

/// What a read of file records asks for.
public struct FileQuery: Sendable, Equatable {
    public var files: [String] = []
    /// (peer, upload id) pairs.
    public var uploads: [(peer: String, id: String)] = []
    public var owners: [String] = []

    public static func == (lhs: FileQuery, rhs: FileQuery) -> Bool {
        lhs.files == rhs.files && lhs.owners == rhs.owners && lhs.uploads.map { "\($0.peer)\n\($0.id)" } == rhs.uploads.map { "\($0.peer)\n\($0.id)" }
    }
}

/// What storing a record came to.
public enum FileRecordOutcome: Sendable, Equatable {
    /// Stored (or already there: the same upload made it); the content of the files evicted to
    /// make room, no longer used by any record, goes from the shared folder.
    case stored(StoredFile, unusedContent: [String])
    case failed(String)
}

/// What waits for file records from the shared store.
enum PendingFiles {
    case header(FileStreamKey, ChatMessage)
    case store(FileStreamKey, ActiveUpload, StoredFile, StoredEvent?)
}
