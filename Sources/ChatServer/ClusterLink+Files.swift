import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// File records in Redis, all in the slot `{files}` so one script stores a record and evicts the
/// oldest: `{files}:records` (id → record), `{files}:uploads` (`DIGEST:ID` of the upload → id),
/// `{files}:content` (SHA-256 → how many records use it), `{files}:bytes` (distinct content
/// bytes), `{files}:owners` (owner → bytes), `{files}:order` (id by time stored).
///
/// A record is its fields joined by TAB (file names and nicks have no control characters):
/// `ID SHA256 SIZE NAME ROOM SEQ TS SENDER SENDER-ACCOUNT UPLOADER-PEER UPLOAD-ID OWNER RECIPIENT
/// RECIPIENT-ACCOUNT RECIPIENT-PEER UPLOAD-KEY`, empty for what it has not. The peers are kept as
/// the SQLite store keeps them: a private file is for its two devices.
extension ClusterLink {
    static let fileKeys = ["{files}:records", "{files}:uploads", "{files}:content", "{files}:bytes", "{files}:owners", "{files}:order"]

    static func uploadKey(peer: String, id: String) -> String { digest(ofPeer: peer) + ":" + id }

    static func encode(_ file: StoredFile) -> String {
        [file.id, file.sha256, String(file.size), file.name, file.room ?? "", file.seq.map(String.init) ?? "", String(file.ts), file.sender,
         file.senderAccount ?? "", file.uploaderPeer, file.uploadID, file.owner, file.recipient ?? "", file.recipientAccount ?? "",
         file.recipientPeer ?? "", uploadKey(peer: file.uploaderPeer, id: file.uploadID)].joined(separator: "\t")
    }

    static func decodeFile(_ bytes: [UInt8]) -> StoredFile? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 16, let size = Int64(fields[2]), let ts = Int64(fields[6]) else { return nil }
        func optional(_ index: Int) -> String? { fields[index].isEmpty ? nil : fields[index] }
        return StoredFile(id: fields[0], sha256: fields[1], size: size, name: fields[3], room: optional(4), seq: optional(5).flatMap { Int64($0) },
                          ts: ts, sender: fields[7], senderAccount: optional(8), uploaderPeer: fields[9], uploadID: fields[10],
                          owner: fields[11], recipient: optional(12), recipientAccount: optional(13), recipientPeer: optional(14))
    }

    /// ARGV: the number of ids, the ids, the number of upload keys, the keys, the owners. Answers
    /// {records (false when none), upload → record pairs, owner bytes}.
    static let loadFilesScript = """
        local answer = {{}, {}, {}}
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
          i = i + 1
        end
        while i <= #ARGV do
          table.insert(answer[3], redis.call('HGET', KEYS[5], ARGV[i]) or '0')
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
            case .failure(.unavailable) where QuicTime.now() < startedAt + Self.readPatience:
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.loadFiles(token, query, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "file records read failed", ["error": "\(error)"])
                report(.filesLoaded(token, nil))
            case .success(let reply):
                guard let parts = reply.elements, parts.count == 3 else { return report(.filesLoaded(token, nil)) }
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
                report(.filesLoaded(token, loaded))
            }
        }
    }

    /// ARGV: id, record, upload key, sha256, size, owner, ts, max bytes. The same upload stored
    /// before answers {0, its record}; else {1, record, content no longer used...}.
    static let storeFileScript = """
        local function field(record, n)
          local i = 0
          for value in string.gmatch(record .. '\\t', '([^\\t]*)\\t') do
            i = i + 1
            if i == n then return value end
          end
        end
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

    func storeFileRecord(_ token: UInt64, _ file: StoredFile, maxBytes: Int64) {
        let arguments = [file.id, Self.encode(file), Self.uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.sha256,
                         String(file.size), file.owner, String(file.ts), String(maxBytes)]
        let command = RedisCommand(arguments: ["EVAL", Self.storeFileScript, String(Self.fileKeys.count)].map { Array($0.utf8) }
                                   + Self.fileKeys.map { Array($0.utf8) } + arguments.map { Array($0.utf8) })
        client.send(command, key: Self.fileKeys[0]) { [weak self] result in
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
}
