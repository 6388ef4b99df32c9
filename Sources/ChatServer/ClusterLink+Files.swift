import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// File records in Redis (``FileStoreScripts``, ``FileRecordFormat``): the node's reads and writes of them.
extension ClusterLink {
    /// ``ClusterKeys/filesFolder``, under the name the app's message gives.
    static let folderKey = ClusterKeys.filesFolder

    func loadFiles(_ token: UInt64, _ query: FileQuery, startedAt: QuicTime = .now()) {
        var arguments = [String(query.files.count)] + query.files
        arguments += [String(query.uploads.count)] + query.uploads.map { FileRecordFormat.uploadKey(peer: $0.peer, id: $0.id) }
        arguments += query.scopes.map(\.key)
        client.send(FileStoreScripts.script(FileStoreScripts.loadFilesScript, arguments), key: FileStoreScripts.keys[0]) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error) where error.isTransient && QuicTime.now() < startedAt + Self.readPatience:
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.loadFiles(token, query, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "file records read failed", ["error": "\(error)"])
                report(.filesLoaded(token, nil))
            case .success(let reply):
                guard let parts = reply.elements, parts.count == 6 else { return report(.filesLoaded(token, nil)) }
                var loaded = LoadedFiles()
                for (id, record) in zip(query.files, parts[0].elements ?? []) {
                    if let file = record.bytes.flatMap(FileRecordFormat.decodeFile) { loaded.files.append(file) } else { loaded.missingFiles.append(id) }
                }
                for (upload, record) in zip(query.uploads, parts[1].elements ?? []) {
                    let file = record.bytes.flatMap(FileRecordFormat.decodeFile)
                    if let file { loaded.files.append(file) }
                    loaded.uploads[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(file?.id)
                }
                for (upload, record) in zip(query.uploads, parts[3].elements ?? []) {
                    loaded.partials[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(record.bytes.flatMap(FileRecordFormat.decodePartial))
                }
                let number = { (reply: RedisReply) in reply.text.flatMap { Int64($0) } ?? 0 }
                for (index, scope) in query.scopes.enumerated() {
                    func at(_ part: Int) -> Int64 { (parts[part].elements ?? []).dropFirst(index).first.map(number) ?? 0 }
                    loaded.usages[scope] = FileUsage(fileBytes: at(2), partialBytes: at(4), partials: Int(at(5)))
                }
                report(.filesLoaded(token, loaded))
            }
        }
    }

    /// A finished upload's record: a durable write (its uploader is told the file is stored).
    func storeFileRecord(_ token: UInt64, _ file: StoredFile, maxBytes: Int64) {
        let arguments = [file.id, FileRecordFormat.encode(file), FileRecordFormat.uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.sha256,
                         String(file.size), String(file.ts), String(maxBytes)]
        client.send(FileStoreScripts.script(FileStoreScripts.storeFileScript, arguments), key: FileStoreScripts.keys[0], durable: true) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error):
                report(.fileRecordStored(token, .failed("\(error)")))
            case .success(let reply):
                guard let parts = reply.elements, parts.count >= 2, let stored = parts[1].bytes.flatMap(FileRecordFormat.decodeFile) else {
                    return report(.fileRecordStored(token, .failed("store answered \(reply)")))
                }
                report(.fileRecordStored(token, .stored(stored, unusedContent: parts.dropFirst(2).compactMap(\.text))))
            }
        }
    }

    /// Interrupted-upload records, written behind (retried while Redis is unavailable, within
    /// reason: a lost one only makes its resume start from 0). A save makes room for what it
    /// charges under `maxBytes`; content that left unused is reported.
    func writePartials(_ writes: [PartialUploadWrite], maxBytes: Int64, attempt: Int = 0) {
        for write in writes {
            var arguments: [String]
            switch write {
            case .save(let partial):
                arguments = ["save", partial.key, FileRecordFormat.encode(partial), FileRecordFormat.uploadKey(peer: partial.peer, id: partial.id), String(partial.updated),
                             String(maxBytes), FileOwner.party(owner: partial.owner, address: partial.address)]
            case .remove(let key):
                arguments = ["remove", key]
            }
            client.send(FileStoreScripts.script(FileStoreScripts.writePartialScript, arguments), key: FileStoreScripts.keys[0]) { [weak self] result in
                guard let self else { return }
                switch RoomEventLog.storeResult(result) {
                case .success(let reply):
                    let unused = reply.elements?.compactMap(\.text) ?? []
                    if !unused.isEmpty { report(.contentEvicted(unused)) }
                case .failure:
                    guard attempt < 25 else { return logger(.error, "interrupted upload record lost", [:]) }
                    loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in
                        self?.writePartials([write], maxBytes: maxBytes, attempt: attempt + 1)
                    }
                }
            }
        }
    }

    /// Interrupted uploads not resumed within `lifetime` (by any node): their records and bytes
    /// go. Every node runs it now and then; a record removed by another first is nothing here.
    func expirePartials(olderThan lifetime: QuicDuration) {
        let cutoff = unixMilliseconds() - Int64(lifetime.nanoseconds / 1_000_000)
        client.send(RedisCommand("ZRANGEBYSCORE", "{files}:partial-age", "-inf", String(cutoff), "LIMIT", "0", "1000"),
                    key: FileStoreScripts.keys[0]) { [weak self] result in
            guard let self, case .success(let reply) = RoomEventLog.storeResult(result) else { return }
            let keys = reply.elements?.compactMap(\.text) ?? []
            guard !keys.isEmpty else { return }
            writePartials(keys.map { .remove(key: $0) }, maxBytes: .max)
            report(.partialsExpired(keys))
        }
    }
}
