import ChatProtocol

/// With a shared store (`--cluster`): file records and interrupted uploads live in Redis, so a
/// file shared through one node can be downloaded through any, and an upload interrupted on one
/// resumes on another (the bytes in a `--files` folder the nodes share). The core reads what an
/// upload or download header needs right before handling it (``remember``), so its synchronous
/// checks answer from memory; a record is stored, and the oldest evicted, by an action answered
/// once done; an interrupted upload's record is written behind (``takeWrites``: losing one only
/// makes its resume start from 0) and expired by the glue.
public final class SharedFileCatalog: FileCatalog {
    private var records: [String: StoredFile] = [:]
    /// `PEER\nID` → the file of that upload (nil: known to have none).
    private var uploads: [String: String?] = [:]
    private var usages: [FileScope: FileUsage] = [:]
    /// `PEER\nID` → its interrupted upload, if any.
    private var partialsByUpload: [String: PartialUpload?] = [:]
    /// Interrupted-upload records to write, in order.
    private var writes: [PartialUploadWrite] = []

    public init() {}

    func takeWrites() -> [PartialUploadWrite] {
        defer { writes = [] }
        return writes
    }

    /// What a load from the store found, kept for the request about to be handled.
    func remember(_ loaded: LoadedFiles) {
        for file in loaded.files { records[file.id] = file }
        for id in loaded.missingFiles { records[id] = nil }
        for (upload, file) in loaded.uploads { uploads[upload] = file }
        for (scope, usage) in loaded.usages { usages[scope] = usage }
        for (upload, partial) in loaded.partials { partialsByUpload[upload] = partial }
    }

    /// Forgets what the last request needed: the next one reads again (other nodes change it).
    func clear() {
        records = [:]
        uploads = [:]
        usages = [:]
        partialsByUpload = [:]
    }

    public static func uploadKey(peer: String, id: String) -> String { peer + "\n" + id }

    private static let notLoaded = HistoryStoreError("file records are read from the shared store before a request needs them")

    // MARK: FileCatalog

    public func file(id: String) throws -> StoredFile? { records[id] }

    public func file(uploadedBy peer: String, id: String) throws -> StoredFile? {
        guard let known = uploads[Self.uploadKey(peer: peer, id: id)] else { throw Self.notLoaded }
        return known.flatMap { records[$0] }
    }

    /// What was loaded for `scope`, less the interrupted upload `exceptPartial` when it was loaded too.
    public func usage(of scope: FileScope, exceptPartial: String?) throws -> FileUsage {
        guard var usage = usages[scope] else { throw Self.notLoaded }
        let excepted = partialsByUpload.values.lazy.compactMap { $0 }.first { $0.key == exceptPartial }
        if let excepted, excepted.belongs(to: scope) {
            usage.partialBytes -= excepted.charged
            usage.partials -= 1
        }
        return usage
    }

    /// Records and eviction are the store's own (``ServerAction/storeFileRecord(_:_:maxBytes:)``).
    public func storeFile(_ file: StoredFile, event: StoredEvent?, retainPerRoom: Int) throws { throw Self.notLoaded }
    public func hasContent(_ sha256: String) throws -> Bool { throw Self.notLoaded }
    public func nextEviction(uploaderParty: String, adding: Int64) throws -> StoredFile? { throw Self.notLoaded }
    public func removeFile(id: String) throws -> Bool { throw Self.notLoaded }
    public func setSequence(_ seq: Int64, ofFile id: String) throws { throw Self.notLoaded }

    public func savePartial(_ partial: PartialUpload) throws { writes.append(.save(partial)) }

    public func partial(peer: String, id: String) throws -> PartialUpload? {
        guard let known = partialsByUpload[Self.uploadKey(peer: peer, id: id)] else { throw Self.notLoaded }
        return known
    }

    public func removePartial(key: String) throws { writes.append(.remove(key: key)) }

    /// The glue expires interrupted uploads in the store itself.
    public func partials(updatedBefore ts: Int64) throws -> [PartialUpload] { [] }

}

/// File records read from the shared store for one request.
public struct LoadedFiles: Sendable, Equatable {
    public var files: [StoredFile] = []
    /// Ids asked for that have no record.
    public var missingFiles: [String] = []
    /// Uploads asked for (``SharedFileCatalog/uploadKey(peer:id:)``) → the file they made, or nil.
    public var uploads: [String: String?] = [:]
    /// What each scope asked for holds.
    public var usages: [FileScope: FileUsage] = [:]
    /// Uploads asked for → their interrupted upload, or nil.
    public var partials: [String: PartialUpload?] = [:]

    public init(files: [StoredFile] = [], missingFiles: [String] = [], uploads: [String: String?] = [:],
                usages: [FileScope: FileUsage] = [:], partials: [String: PartialUpload?] = [:]) {
        self.files = files
        self.missingFiles = missingFiles
        self.uploads = uploads
        self.usages = usages
        self.partials = partials
    }
}

/// A change of an interrupted upload's record in the shared store.
public enum PartialUploadWrite: Sendable, Equatable {
    case save(PartialUpload)
    case remove(key: String)
}

/// What a read of file records asks for.
public struct FileQuery: Sendable, Equatable {
    public var files: [String] = []
    /// (peer, upload id) pairs: their stored file and their interrupted upload.
    public var uploads: [(peer: String, id: String)] = []
    /// Whose usage a header is checked against (``FileUsage``).
    public var scopes: [FileScope] = []

    public static func == (lhs: FileQuery, rhs: FileQuery) -> Bool {
        lhs.files == rhs.files && lhs.scopes == rhs.scopes && lhs.uploads.map { "\($0.peer)\n\($0.id)" } == rhs.uploads.map { "\($0.peer)\n\($0.id)" }
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
    /// A header waiting for its records (`remote`: a private file's recipient on another node).
    case header(FileStreamKey, ChatMessage, remote: FileRecipient?)
    case store(FileStreamKey, ActiveUpload, StoredFile, StoredEvent?)
}
