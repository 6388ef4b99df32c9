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

    public func setSequence(_ seq: Int64, ofFile id: String) {
        guard let index = files.firstIndex(where: { $0.id == id }) else { return }
        files[index].seq = seq
    }

    public func file(uploadedBy peer: String, id: String) -> StoredFile? {
        files.first { $0.uploaderPeer == peer && $0.uploadID == id }
    }

    public func hasContent(_ sha256: String) -> Bool { files.contains { $0.sha256 == sha256 } }

    public func usage(of scope: FileScope, exceptPartial: String?) -> FileUsage {
        var usage = FileUsage()
        switch scope {
        case .everyone:
            var sizeByContent: [String: Int64] = [:]
            for file in files { sizeByContent[file.sha256] = file.size }
            usage.fileBytes = sizeByContent.values.reduce(0, +)
        case .owner(let owner):
            usage.fileBytes = files.reduce(0) { $0 + ($1.owner == owner ? $1.size : 0) }
        case .address(let address):
            usage.fileBytes = files.reduce(0) { $0 + ($1.address == address ? $1.size : 0) }
        }
        for partial in partialsByKey.values where partial.key != exceptPartial && partial.belongs(to: scope) {
            usage.partialBytes += partial.charged
            usage.partials += 1
        }
        return usage
    }

    /// ``FileEvictionRule``. Ties between files of equal age go to the first stored (as the
    /// database orders them).
    public func nextEviction(uploaderParty: String, adding: Int64) -> StoredFile? {
        var held: [String: Int64] = [:]
        var oldest: [String: (index: Int, file: StoredFile)] = [:]
        for (index, file) in files.enumerated() {
            let party = FileOwner.party(owner: file.owner, address: file.address)
            held[party, default: uploaderParty == party ? adding : 0] += file.size
            if let known = oldest[party], known.file.ts <= file.ts { continue }
            oldest[party] = (index, file)
        }
        let candidate = oldest.min { a, b in
            let heldA = held[a.key] ?? 0
            let heldB = held[b.key] ?? 0
            return heldA != heldB ? heldA > heldB : (a.value.file.ts, a.value.index) < (b.value.file.ts, b.value.index)
        }
        guard let (party, first) = candidate else { return nil }
        guard FileEvictionRule.isExemptAccount(party) else { return first.file }
        let newcomers = oldest.filter { FileEvictionRule.isNewcomer($0.key, since: $0.value.file.ts, to: first.file.ts) }
        var newcomersHeld = newcomers.keys.reduce(0) { $0 + (held[$1] ?? 0) }
        if oldest[uploaderParty] == nil, FileEvictionRule.isNewcomer(uploaderParty, since: nil, to: first.file.ts) { newcomersHeld += adding }
        guard let theirs = newcomers.values.min(by: { ($0.file.ts, $0.index) < ($1.file.ts, $1.index) }),
              newcomersHeld >= held[party] ?? 0 else { return first.file }
        return theirs.file
    }

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
}
