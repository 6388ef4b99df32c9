/// File records and partial uploads for a server without `--db`: they live as long as the
/// process (the glue keeps the bytes in a temporary folder removed at exit). A room file's
/// `file` event goes into the same process's history store.
public final class InMemoryFileCatalog: FileCatalog {
    private let history: any HistoryStore
    /// Records in the order they were stored.
    private var files: [StoredFile] = []
    private var partialsByKey: [String: PartialUpload] = [:]

    public init(history: any HistoryStore) {
        self.history = history
    }

    public func storeFile(_ file: StoredFile, event: StoredEvent?, retainPerRoom: Int) throws {
        if let event { try history.append(events: [event], receipts: [], retainPerRoom: retainPerRoom) }
        files.append(file)
    }

    public func file(id: String) -> StoredFile? { files.first { $0.id == id } }

    public func file(uploadedBy peer: String, id: String) -> StoredFile? {
        files.first { $0.uploaderPeer == peer && $0.uploadID == id }
    }

    public func storedBytes() -> Int64 {
        var sizeByContent: [String: Int64] = [:]
        for file in files { sizeByContent[file.sha256] = file.size }
        return sizeByContent.values.reduce(0, +)
    }

    public func hasContent(_ sha256: String) -> Bool { files.contains { $0.sha256 == sha256 } }

    public func bytesOwned(by owner: String) -> Int64 {
        files.reduce(0) { $0 + ($1.owner == owner ? $1.size : 0) }
    }

    /// The earliest `ts`, the first stored among equals (as the database orders them).
    public func oldestFile() -> StoredFile? { files.min { $0.ts < $1.ts } }

    public func removeFile(id: String) -> Bool {
        guard let index = files.firstIndex(where: { $0.id == id }) else { return false }
        let removed = files.remove(at: index)
        return !hasContent(removed.sha256)
    }

    public func savePartial(_ partial: PartialUpload) {
        if let old = partialsByKey.values.first(where: { $0.peer == partial.peer && $0.id == partial.id && $0.key != partial.key }) {
            partialsByKey[old.key] = nil
        }
        partialsByKey[partial.key] = partial
    }

    public func partial(peer: String, id: String) -> PartialUpload? {
        partialsByKey.values.first { $0.peer == peer && $0.id == id }
    }

    public func removePartial(key: String) { partialsByKey[key] = nil }

    public func partials(updatedBefore ts: Int64) -> [PartialUpload] {
        partialsByKey.values.filter { $0.updated < ts }.sorted { $0.updated < $1.updated }
    }

    public func partialBytes(owner: String?, exceptKey: String?) -> Int64 {
        partialsByKey.values.reduce(0) { total, partial in
            total + (partial.key != exceptKey && (owner == nil || partial.owner == owner) ? partial.size : 0)
        }
    }
}
