import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// File records in Redis, all in the slot `{files}` so one script stores a record and evicts the
/// oldest: `{files}:records` (id → record), `{files}:uploads` (`DIGEST:ID` of the upload → id),
/// `{files}:content` (SHA-256 → how many records use it), `{files}:bytes` (distinct content
/// bytes), `{files}:owners` (owner → bytes), `{files}:order` (id by time stored); interrupted
/// uploads: `{files}:partials` (key → record), `{files}:partial-of` (`DIGEST:ID` → key),
/// `{files}:partial-owners` (owner → bytes), `{files}:partial-age` (key by last update).
///
/// A record is its fields joined by TAB (file names and nicks have no control characters):
/// `ID SHA256 SIZE NAME ROOM SEQ TS SENDER SENDER-ACCOUNT UPLOADER-PEER UPLOAD-ID OWNER RECIPIENT
/// RECIPIENT-ACCOUNT RECIPIENT-PEER UPLOAD-KEY`, empty for what it has not. The peers are kept as
/// the SQLite store keeps them: a private file is for its two devices.
extension ClusterLink {
    static let fileKeys = ["{files}:records", "{files}:uploads", "{files}:content", "{files}:bytes", "{files}:owners", "{files}:order",
                           "{files}:partials", "{files}:partial-of", "{files}:partial-owners", "{files}:partial-age"]

    /// An interrupted upload: `KEY PEER ID OWNER ROOM RECIPIENT NAME SIZE SHA256 UPDATED UPLOAD-KEY`
    /// by TAB.
    static func encode(_ partial: PartialUpload) -> String {
        [partial.key, partial.peer, partial.id, partial.owner, partial.room ?? "", partial.recipient ?? "", partial.name, String(partial.size),
         partial.sha256, String(partial.updated), uploadKey(peer: partial.peer, id: partial.id)].joined(separator: "\t")
    }

    static func decodePartial(_ bytes: [UInt8]) -> PartialUpload? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 11, let size = Int64(fields[7]), let updated = Int64(fields[9]) else { return nil }
        return PartialUpload(key: fields[0], peer: fields[1], id: fields[2], owner: fields[3], room: fields[4].isEmpty ? nil : fields[4],
                             recipient: fields[5].isEmpty ? nil : fields[5], name: fields[6], size: size, sha256: fields[8], updated: updated)
    }

    /// Lua: the n-th TAB-separated field of a record (the scripts below read records' fields).
    static let fieldFunction = """
        local function field(record, n)
          local i = 0
          for value in string.gmatch(record .. '\\t', '([^\\t]*)\\t') do
            i = i + 1
            if i == n then return value end
          end
        end

        """

    /// KEYS: the file keys. ARGV: "save" KEY RECORD UPLOAD-KEY OWNER SIZE UPDATED, or "remove" KEY.
    static let writePartialScript = fieldFunction + """
        -- Forgets an interrupted upload's record and takes its bytes off its owner.
        local function drop(key)
          local record = redis.call('HGET', KEYS[7], key)
          if not record then return end
          redis.call('HDEL', KEYS[7], key)
          redis.call('ZREM', KEYS[10], key)
          local upload = field(record, 11)
          if redis.call('HGET', KEYS[8], upload) == key then redis.call('HDEL', KEYS[8], upload) end
          local owner = field(record, 4)
          if redis.call('HINCRBY', KEYS[9], owner, -tonumber(field(record, 8))) <= 0 then redis.call('HDEL', KEYS[9], owner) end
        end
        if ARGV[1] == 'save' then
          -- A new upload under the id of an interrupted one replaces it (its bytes already went).
          local previous = redis.call('HGET', KEYS[8], ARGV[4])
          if previous then drop(previous) end
          drop(ARGV[2])
          redis.call('HSET', KEYS[7], ARGV[2], ARGV[3])
          redis.call('HSET', KEYS[8], ARGV[4], ARGV[2])
          redis.call('HINCRBY', KEYS[9], ARGV[5], ARGV[6])
          redis.call('ZADD', KEYS[10], ARGV[7], ARGV[2])
          return 1
        end
        drop(ARGV[2])
        return 1
        """

    static func uploadKey(peer: String, id: String) -> String { digest(ofPeer: peer) + ":" + id }

    static func encode(_ file: StoredFile) -> String {
        [file.id, file.sha256, String(file.size), file.name, file.room ?? "", file.seq.map(String.init) ?? "", String(file.ts), file.sender,
         file.senderAccount ?? "", file.uploaderPeer, file.uploadID, file.owner, file.recipient ?? "", file.recipientAccount ?? "",
         file.recipientPeer ?? "", uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.recipientDevice ?? ""].joined(separator: "\t")
    }

    static func decodeFile(_ bytes: [UInt8]) -> StoredFile? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        // 16 fields in records written before the recipient's device was (17).
        guard fields.count == 16 || fields.count == 17, let size = Int64(fields[2]), let ts = Int64(fields[6]) else { return nil }
        func optional(_ index: Int) -> String? { fields[index].isEmpty ? nil : fields[index] }
        return StoredFile(id: fields[0], sha256: fields[1], size: size, name: fields[3], room: optional(4), seq: optional(5).flatMap { Int64($0) },
                          ts: ts, sender: fields[7], senderAccount: optional(8), uploaderPeer: fields[9], uploadID: fields[10],
                          owner: fields[11], recipient: optional(12), recipientAccount: optional(13), recipientPeer: optional(14),
                          recipientDevice: fields.count == 17 ? optional(16) : nil)
    }

    /// ARGV: the number of ids, the ids, the number of upload keys, the keys, the owners. Answers
    /// {records ('' when none), each upload's record, owner bytes, each upload's interrupted
    /// upload, owner bytes of interrupted uploads}.
    static let loadFilesScript = """
        local answer = {{}, {}, {}, {}, {}}
        local i = 2
        for n = 1, tonumber(ARGV[1]) do
          table.insert(answer[1], redis.call('HGET', KEYS[1], ARGV[i]) or '')
          i = i + 1
        end
        local uploads = tonumber(ARGV[i])
        i = i + 1
        for n = 1, uploads do
          local id = redis.call('HGET', KEYS[2], ARGV[i])
          table.insert(answer[2], id and (redis.call('HGET', KEYS[1], id) or '') or '')
          local partial = redis.call('HGET', KEYS[8], ARGV[i])
          table.insert(answer[4], partial and (redis.call('HGET', KEYS[7], partial) or '') or '')
          i = i + 1
        end
        while i <= #ARGV do
          table.insert(answer[3], redis.call('HGET', KEYS[5], ARGV[i]) or '0')
          table.insert(answer[5], redis.call('HGET', KEYS[9], ARGV[i]) or '0')
          i = i + 1
        end
        return answer
        """

    func loadFiles(_ token: UInt64, _ query: FileQuery, startedAt: QuicTime = .now()) {
        var arguments = [String(query.files.count)] + query.files
        arguments += [String(query.uploads.count)] + query.uploads.map { Self.uploadKey(peer: $0.peer, id: $0.id) }
        arguments += query.owners
        let command = RedisCommand(arguments: ["EVAL", Self.loadFilesScript, String(Self.fileKeys.count)].map { Array($0.utf8) }
                                   + Self.fileKeys.map { Array($0.utf8) } + arguments.map { Array($0.utf8) })
        client.send(command, key: Self.fileKeys[0]) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error) where error.isTransient && QuicTime.now() < startedAt + Self.readPatience:
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.loadFiles(token, query, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "file records read failed", ["error": "\(error)"])
                report(.filesLoaded(token, nil))
            case .success(let reply):
                guard let parts = reply.elements, parts.count == 5 else { return report(.filesLoaded(token, nil)) }
                var loaded = LoadedFiles()
                for (id, record) in zip(query.files, parts[0].elements ?? []) {
                    if let file = record.bytes.flatMap(Self.decodeFile) { loaded.files.append(file) } else { loaded.missingFiles.append(id) }
                }
                for (upload, record) in zip(query.uploads, parts[1].elements ?? []) {
                    let file = record.bytes.flatMap(Self.decodeFile)
                    if let file { loaded.files.append(file) }
                    loaded.uploads[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(file?.id)
                }
                for (owner, bytes) in zip(query.owners, parts[2].elements ?? []) {
                    loaded.ownedBytes[owner] = bytes.text.flatMap { Int64($0) } ?? 0
                }
                for (upload, record) in zip(query.uploads, parts[3].elements ?? []) {
                    loaded.partials[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(record.bytes.flatMap(Self.decodePartial))
                }
                for (owner, bytes) in zip(query.owners, parts[4].elements ?? []) {
                    loaded.partialBytes[owner] = bytes.text.flatMap { Int64($0) } ?? 0
                }
                report(.filesLoaded(token, loaded))
            }
        }
    }

    /// ARGV: id, record, upload key, sha256, size, owner, ts, max bytes. The same upload stored
    /// before answers {0, its record}; else {1, record, content no longer used...}.
    static let storeFileScript = fieldFunction + """
        local earlier = redis.call('HGET', KEYS[2], ARGV[3])
        if earlier then
          local record = redis.call('HGET', KEYS[1], earlier)
          if record then return {0, record} end
        end
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
        redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
        if redis.call('HINCRBY', KEYS[3], ARGV[4], 1) == 1 then redis.call('INCRBY', KEYS[4], ARGV[5]) end
        redis.call('HINCRBY', KEYS[5], ARGV[6], ARGV[5])
        redis.call('ZADD', KEYS[6], ARGV[7], ARGV[1])
        local answer = {1, ARGV[2]}
        local skip = 0
        while tonumber(redis.call('GET', KEYS[4]) or '0') > tonumber(ARGV[8]) do
          local oldest = redis.call('ZRANGE', KEYS[6], skip, skip)[1]
          if not oldest then break end
          if oldest == ARGV[1] then
            skip = skip + 1
          else
            local record = redis.call('HGET', KEYS[1], oldest)
            redis.call('ZREM', KEYS[6], oldest)
            if record then
              local sha, size, owner = field(record, 2), field(record, 3), field(record, 12)
              redis.call('HDEL', KEYS[1], oldest)
              redis.call('HDEL', KEYS[2], field(record, 16))
              redis.call('HINCRBY', KEYS[5], owner, -tonumber(size))
              if redis.call('HINCRBY', KEYS[3], sha, -1) <= 0 then
                redis.call('HDEL', KEYS[3], sha)
                redis.call('DECRBY', KEYS[4], size)
                table.insert(answer, sha)
              end
            end
          end
        end
        return answer
        """

    /// A finished upload's record: a durable write (its uploader is told the file is stored).
    func storeFileRecord(_ token: UInt64, _ file: StoredFile, maxBytes: Int64) {
        let arguments = [file.id, Self.encode(file), Self.uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.sha256,
                         String(file.size), file.owner, String(file.ts), String(maxBytes)]
        let command = RedisCommand(arguments: ["EVAL", Self.storeFileScript, String(Self.fileKeys.count)].map { Array($0.utf8) }
                                   + Self.fileKeys.map { Array($0.utf8) } + arguments.map { Array($0.utf8) })
        client.send(command, key: Self.fileKeys[0], durable: true) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(let error):
                report(.fileRecordStored(token, .failed("\(error)")))
            case .success(let reply):
                guard let parts = reply.elements, parts.count >= 2, let stored = parts[1].bytes.flatMap(Self.decodeFile) else {
                    return report(.fileRecordStored(token, .failed("store answered \(reply)")))
                }
                report(.fileRecordStored(token, .stored(stored, unusedContent: parts.dropFirst(2).compactMap(\.text))))
            }
        }
    }

    /// Interrupted-upload records, written behind (retried while Redis is unavailable, within
    /// reason: a lost one only makes its resume start from 0).
    func writePartials(_ writes: [PartialUploadWrite], attempt: Int = 0) {
        for write in writes {
            var arguments: [String]
            switch write {
            case .save(let partial):
                arguments = ["save", partial.key, Self.encode(partial), Self.uploadKey(peer: partial.peer, id: partial.id), partial.owner,
                             String(partial.size), String(partial.updated)]
            case .remove(let key):
                arguments = ["remove", key]
            }
            let command = RedisCommand(arguments: ["EVAL", Self.writePartialScript, String(Self.fileKeys.count)].map { Array($0.utf8) }
                                       + Self.fileKeys.map { Array($0.utf8) } + arguments.map { Array($0.utf8) })
            client.send(command, key: Self.fileKeys[0]) { [weak self] result in
                guard let self, case .failure = RoomEventLog.storeResult(result) else { return }
                guard attempt < 25 else { return logger(.error, "interrupted upload record lost", [:]) }
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.writePartials([write], attempt: attempt + 1) }
            }
        }
    }

    /// Interrupted uploads not resumed within `lifetime` (by any node): their records and bytes
    /// go. Every node runs it now and then; a record removed by another first is nothing here.
    func expirePartials(olderThan lifetime: QuicDuration) {
        let cutoff = unixMilliseconds() - Int64(lifetime.nanoseconds / 1_000_000)
        client.send(RedisCommand("ZRANGEBYSCORE", "{files}:partial-age", "-inf", String(cutoff), "LIMIT", "0", "1000"),
                    key: Self.fileKeys[0]) { [weak self] result in
            guard let self, case .success(let reply) = RoomEventLog.storeResult(result) else { return }
            let keys = reply.elements?.compactMap(\.text) ?? []
            guard !keys.isEmpty else { return }
            writePartials(keys.map { .remove(key: $0) })
            report(.partialsExpired(keys))
        }
    }
}
