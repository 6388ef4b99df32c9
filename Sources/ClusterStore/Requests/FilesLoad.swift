import ChatServerCore
import EventRuntime
import RedisClient

/// Reads file records for one request (``FileStoreScripts/loadFilesScript``): the files asked
/// for, the uploads' files and interrupted uploads, and the scopes' usage. Retried while Redis is
/// unavailable (``ReadPatience``).
public struct FilesLoad: StoreRequest {
    public enum Outcome: Equatable, Sendable {
        case loaded(LoadedFiles)
        /// Redis could not be read (logged by the caller).
        case failed(RoomStoreError)
        /// Redis answered something that is no answer of the script.
        case malformed
    }

    /// The files' ids, the uploads (peer and upload id) and the scopes (``FileQuery``'s).
    public let files: [String]
    public let uploads: [(peer: String, id: String)]
    public let scopes: [FileScope]
    let patience: ReadPatience

    public init(files: [String], uploads: [(peer: String, id: String)], scopes: [FileScope], startedAt: MonotonicTime) {
        self.files = files
        self.uploads = uploads
        self.scopes = scopes
        patience = ReadPatience(startedAt: startedAt)
    }

    public init(_ query: FileQuery, startedAt: MonotonicTime) {
        self.init(files: query.files, uploads: query.uploads, scopes: query.scopes, startedAt: startedAt)
    }

    public func start() -> StoreStep<Outcome> {
        var arguments = [String(files.count)] + files
        arguments += [String(uploads.count)] + uploads.map { FileRecordFormat.uploadKey(peer: $0.peer, id: $0.id) }
        arguments += scopes.map(\.key)
        return .send([StoreCommand(FileStoreScripts.script(FileStoreScripts.loadFilesScript, arguments), key: FileStoreScripts.keys[0])])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Outcome> {
        switch results[0] {
        case .failure(let error) where patience.retries(error, now: now):
            return .wait(ReadPatience.retryDelay)
        case .failure(let error):
            return .done(.failed(error))
        case .success(let reply):
            return .done(decode(reply).map(Outcome.loaded) ?? .malformed)
        }
    }

    /// The script's six parts: the files' records, the uploads' records, the scopes' file bytes,
    /// the uploads' interrupted records, the scopes' partial bytes and partial counts.
    func decode(_ reply: RedisReply) -> LoadedFiles? {
        guard let parts = reply.elements, parts.count == 6 else { return nil }
        var loaded = LoadedFiles()
        for (id, record) in zip(files, parts[0].elements ?? []) {
            if let file = record.bytes.flatMap(FileRecordFormat.decodeFile) { loaded.files.append(file) } else { loaded.missingFiles.append(id) }
        }
        for (upload, record) in zip(uploads, parts[1].elements ?? []) {
            let file = record.bytes.flatMap(FileRecordFormat.decodeFile)
            if let file { loaded.files.append(file) }
            loaded.uploads[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(file?.id)
        }
        for (upload, record) in zip(uploads, parts[3].elements ?? []) {
            loaded.partials[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(record.bytes.flatMap(FileRecordFormat.decodePartial))
        }
        let number = { (reply: RedisReply) in reply.text.flatMap { Int64($0) } ?? 0 }
        for (index, scope) in scopes.enumerated() {
            func at(_ part: Int) -> Int64 { (parts[part].elements ?? []).dropFirst(index).first.map(number) ?? 0 }
            loaded.usages[scope] = FileUsage(fileBytes: at(2), partialBytes: at(4), partials: Int(at(5)))
        }
        return loaded
    }
}
