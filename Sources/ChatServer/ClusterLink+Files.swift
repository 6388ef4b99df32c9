import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// File records in Redis, all in the slot `{files}` so one script stores a record and evicts
/// others: `{files}:records` (id → record), `{files}:uploads` (`DIGEST:ID` of the upload → id),
/// `{files}:content` (SHA-256 → how many records use it), `{files}:bytes` (distinct content
/// bytes), `{files}:owners` (owner, and `address:A`, → bytes of its files), `{files}:order` (id
/// by time stored), `{files}:parties` (party → bytes of its files; ``FileOwner/party(owner:address:)``) with
/// `{files}:party:PARTY` (its ids by time stored, for eviction); interrupted uploads and uploads
/// being received: `{files}:partials` (key → record), `{files}:partial-of` (`DIGEST:ID` → key),
/// `{files}:partial-owners` (owner, `address:A` and `*` for everyone → bytes charged),
/// `{files}:partial-counts` (the same → how many), `{files}:partial-age` (key by last update);
/// `{files}:parties-built` once a store written before parties has been given them.
///
/// A record is its fields joined by TAB (file names and nicks have no control characters):
/// `ID SHA256 SIZE NAME ROOM SEQ TS SENDER SENDER-ACCOUNT UPLOADER-PEER UPLOAD-ID OWNER RECIPIENT
/// RECIPIENT-ACCOUNT RECIPIENT-PEER UPLOAD-KEY RECIPIENT-DEVICE ADDRESS`, empty for what it has
/// not. The peers are kept as the SQLite store keeps them: a private file is for its two devices.
extension ClusterLink {
    static let fileKeys = ["{files}:records", "{files}:uploads", "{files}:content", "{files}:bytes", "{files}:owners", "{files}:order",
                           "{files}:partials", "{files}:partial-of", "{files}:partial-owners", "{files}:partial-age",
                           "{files}:partial-counts", "{files}:parties", "{files}:parties-built"]

    /// An interrupted upload: `KEY PEER ID OWNER ROOM RECIPIENT NAME SIZE SHA256 UPDATED UPLOAD-KEY
    /// ADDRESS CHARGED` by TAB (11 fields before addresses: charged its size).
    static func encode(_ partial: PartialUpload) -> String {
        [partial.key, partial.peer, partial.id, partial.owner, partial.room ?? "", partial.recipient ?? "", partial.name, String(partial.size),
         partial.sha256, String(partial.updated), uploadKey(peer: partial.peer, id: partial.id), partial.address,
         String(partial.charged)].joined(separator: "\t")
    }

    static func decodePartial(_ bytes: [UInt8]) -> PartialUpload? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 11 || fields.count == 13, let size = Int64(fields[7]), let updated = Int64(fields[9]) else { return nil }
        let charged = fields.count == 13 ? Int64(fields[12]) : size
        return PartialUpload(key: fields[0], peer: fields[1], id: fields[2], owner: fields[3], address: fields.count == 13 ? fields[11] : "",
                             room: fields[4].isEmpty ? nil : fields[4], recipient: fields[5].isEmpty ? nil : fields[5], name: fields[6],
                             size: size, sha256: fields[8], updated: updated, charged: charged ?? size)
    }

    /// Lua shared by the scripts below: the n-th TAB-separated field of a record (nil past its
    /// last); what a file and an upload count against; eviction.
    static let fileFunctions = """
        local function field(record, n)
          local i = 0
          for value in string.gmatch(record .. '\\t', '([^\\t]*)\\t') do
            i = i + 1
            if i == n then return value end
          end
        end

        local function partyOf(record)
          local address = field(record, 18)
          if address and address ~= '' then return 'address:' .. address end
          local owner = field(record, 12)
          if string.sub(owner, 1, 5) == 'peer:' then return 'guests' end
          return owner
        end

        local function partyOrder(party) return '{files}:party:' .. party end

        -- A party leaves the ranking with its last file.
        local function settleParty(party)
          if redis.call('ZCARD', partyOrder(party)) == 0 then redis.call('ZREM', KEYS[12], party) end
        end

        local function addTo(hash, key, amount)
          if redis.call('HINCRBY', hash, key, amount) <= 0 then redis.call('HDEL', hash, key) end
        end

        -- A stored file's bytes counted (sign 1) or no longer (-1) for its owner, address and party.
        local function holdFile(id, record, sign)
          local size = tonumber(field(record, 3))
          addTo(KEYS[5], field(record, 12), sign * size)
          local address = field(record, 18)
          if address and address ~= '' then addTo(KEYS[5], 'address:' .. address, sign * size) end
          local party = partyOf(record)
          redis.call('ZINCRBY', KEYS[12], sign * size, party)
          if sign > 0 then redis.call('ZADD', partyOrder(party), tonumber(field(record, 7)), id) else redis.call('ZREM', partyOrder(party), id) end
          settleParty(party)
        end

        -- An upload's charge counted (sign 1) or no longer (-1) for its owner, address and everyone.
        local function chargeUpload(record, sign)
          local charged = tonumber(field(record, 13) or field(record, 8))
          local scopes = {field(record, 4), '*'}
          local address = field(record, 12)
          if address and address ~= '' then table.insert(scopes, 'address:' .. address) end
          for _, scope in ipairs(scopes) do
            addTo(KEYS[9], scope, sign * charged)
            addTo(KEYS[11], scope, sign)
          end
        end

        -- The file eviction takes next, never `skip`: the oldest of the party holding the most
        -- bytes (among parties holding as much, the one whose oldest file is the oldest).
        local function nextEviction(skip)
          local best, bestParty, bestHeld, bestTs
          local start = 0
          while true do
            local parties = redis.call('ZREVRANGE', KEYS[12], start, start + 15, 'WITHSCORES')
            if #parties == 0 then return best, bestParty end
            for i = 1, #parties, 2 do
              local held = tonumber(parties[i + 1])
              if bestHeld and held < bestHeld then return best, bestParty end
              local oldest = redis.call('ZRANGE', partyOrder(parties[i]), 0, 1, 'WITHSCORES')
              for j = 1, #oldest, 2 do
                if oldest[j] ~= skip then
                  local ts = tonumber(oldest[j + 1])
                  if not bestHeld or ts < bestTs then best, bestParty, bestHeld, bestTs = oldest[j], parties[i], held, ts end
                  break
                end
              end
            end
            start = start + 16
          end
        end

        -- Removes stored files while distinct content and every upload's charge pass `maxBytes`;
        -- appends to `answer` the content no record uses any more.
        local function evict(maxBytes, skip, answer)
          while tonumber(redis.call('GET', KEYS[4]) or '0') + tonumber(redis.call('HGET', KEYS[9], '*') or '0') > maxBytes do
            local id, party = nextEviction(skip)
            if not id then return end
            local record = redis.call('HGET', KEYS[1], id)
            if record then
              holdFile(id, record, -1)
              redis.call('HDEL', KEYS[1], id)
              redis.call('HDEL', KEYS[2], field(record, 16))
              redis.call('ZREM', KEYS[6], id)
              local sha = field(record, 2)
              if redis.call('HINCRBY', KEYS[3], sha, -1) <= 0 then
                redis.call('HDEL', KEYS[3], sha)
                redis.call('DECRBY', KEYS[4], field(record, 3))
                table.insert(answer, sha)
              end
            else
              redis.call('ZREM', partyOrder(party), id)
              settleParty(party)
            end
          end
        end

        """

    /// KEYS: the file keys. ARGV: "save" KEY RECORD UPLOAD-KEY UPDATED MAX-BYTES PARTY, or
    /// "remove" KEY. A save then evicts stored files while they and the uploads' charges pass
    /// MAX-BYTES, the uploader's PARTY counting the upload's charge. Answers the content no record
    /// uses any more.
    static let writePartialScript = fileFunctions + """
        -- Forgets an interrupted upload's record and its charge.
        local function drop(key)
          local record = redis.call('HGET', KEYS[7], key)
          if not record then return end
          redis.call('HDEL', KEYS[7], key)
          redis.call('ZREM', KEYS[10], key)
          local upload = field(record, 11)
          if redis.call('HGET', KEYS[8], upload) == key then redis.call('HDEL', KEYS[8], upload) end
          chargeUpload(record, -1)
        end
        local unused = {}
        if ARGV[1] == 'save' then
          -- A new upload under the id of an interrupted one replaces it (its bytes already went).
          local previous = redis.call('HGET', KEYS[8], ARGV[4])
          if previous then drop(previous) end
          drop(ARGV[2])
          redis.call('HSET', KEYS[7], ARGV[2], ARGV[3])
          redis.call('HSET', KEYS[8], ARGV[4], ARGV[2])
          chargeUpload(ARGV[3], 1)
          redis.call('ZADD', KEYS[10], ARGV[5], ARGV[2])
          local weight = tonumber(field(ARGV[3], 13))
          redis.call('ZINCRBY', KEYS[12], weight, ARGV[7])
          evict(tonumber(ARGV[6]), nil, unused)
          redis.call('ZINCRBY', KEYS[12], -weight, ARGV[7])
          settleParty(ARGV[7])
          return unused
        end
        drop(ARGV[2])
        return unused
        """

    /// Gives the files of a store written before parties (and the uploads of one written before
    /// addresses) what eviction and the limits count, once.
    static let buildPartiesScript = fileFunctions + """
        if redis.call('EXISTS', KEYS[13]) == 1 then return 0 end
        for _, id in ipairs(redis.call('ZRANGE', KEYS[6], 0, -1)) do
          local record = redis.call('HGET', KEYS[1], id)
          if record then
            local party = partyOf(record)
            redis.call('ZINCRBY', KEYS[12], tonumber(field(record, 3)), party)
            redis.call('ZADD', partyOrder(party), tonumber(field(record, 7)), id)
          end
        end
        local partials = redis.call('HGETALL', KEYS[7])
        for i = 2, #partials, 2 do
          -- Owners' bytes were counted already; everyone's and the counts were not.
          addTo(KEYS[9], '*', tonumber(field(partials[i], 8)))
          addTo(KEYS[11], '*', 1)
          addTo(KEYS[11], field(partials[i], 4), 1)
        end
        redis.call('SET', KEYS[13], '1')
        return 1
        """

    static func uploadKey(peer: String, id: String) -> String { digest(ofPeer: peer) + ":" + id }

    static func encode(_ file: StoredFile) -> String {
        [file.id, file.sha256, String(file.size), file.name, file.room ?? "", file.seq.map(String.init) ?? "", String(file.ts), file.sender,
         file.senderAccount ?? "", file.uploaderPeer, file.uploadID, file.owner, file.recipient ?? "", file.recipientAccount ?? "",
         file.recipientPeer ?? "", uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.recipientDevice ?? "",
         file.address].joined(separator: "\t")
    }

    static func decodeFile(_ bytes: [UInt8]) -> StoredFile? {
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        // 16 fields in records written before the recipient's device was (17), and before the address (18).
        guard (16...18).contains(fields.count), let size = Int64(fields[2]), let ts = Int64(fields[6]) else { return nil }
        func optional(_ index: Int) -> String? { index < fields.count && !fields[index].isEmpty ? fields[index] : nil }
        return StoredFile(id: fields[0], sha256: fields[1], size: size, name: fields[3], room: optional(4), seq: optional(5).flatMap { Int64($0) },
                          ts: ts, sender: fields[7], senderAccount: optional(8), uploaderPeer: fields[9], uploadID: fields[10],
                          owner: fields[11], address: optional(17) ?? "", recipient: optional(12), recipientAccount: optional(13),
                          recipientPeer: optional(14), recipientDevice: optional(16))
    }

    /// ARGV: the number of ids, the ids, the number of upload keys, the keys, the scopes
    /// (``FileScope/key``). Answers {records ('' when none), each upload's record, each scope's
    /// file bytes, each upload's interrupted upload, each scope's charged bytes, each scope's
    /// uploads}.
    static let loadFilesScript = """
        local answer = {{}, {}, {}, {}, {}, {}}
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
          if ARGV[i] == '*' then
            table.insert(answer[3], redis.call('GET', KEYS[4]) or '0')
          else
            table.insert(answer[3], redis.call('HGET', KEYS[5], ARGV[i]) or '0')
          end
          table.insert(answer[5], redis.call('HGET', KEYS[9], ARGV[i]) or '0')
          table.insert(answer[6], redis.call('HGET', KEYS[11], ARGV[i]) or '0')
          i = i + 1
        end
        return answer
        """

    func loadFiles(_ token: UInt64, _ query: FileQuery, startedAt: QuicTime = .now()) {
        var arguments = [String(query.files.count)] + query.files
        arguments += [String(query.uploads.count)] + query.uploads.map { Self.uploadKey(peer: $0.peer, id: $0.id) }
        arguments += query.scopes.map(\.key)
        client.send(Self.fileScript(Self.loadFilesScript, arguments), key: Self.fileKeys[0]) { [weak self] result in
            guard let self else { return }
            switch RoomEventLog.storeResult(result) {
            case .failure(.unavailable) where QuicTime.now() < startedAt + Self.readPatience:
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.loadFiles(token, query, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "file records read failed", ["error": "\(error)"])
                report(.filesLoaded(token, nil))
            case .success(let reply):
                guard let parts = reply.elements, parts.count == 6 else { return report(.filesLoaded(token, nil)) }
                var loaded = LoadedFiles()
                for (id, record) in zip(query.files, parts[0].elements ?? []) {
                    if let file = record.bytes.flatMap(Self.decodeFile) { loaded.files.append(file) } else { loaded.missingFiles.append(id) }
                }
                for (upload, record) in zip(query.uploads, parts[1].elements ?? []) {
                    let file = record.bytes.flatMap(Self.decodeFile)
                    if let file { loaded.files.append(file) }
                    loaded.uploads[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(file?.id)
                }
                for (upload, record) in zip(query.uploads, parts[3].elements ?? []) {
                    loaded.partials[SharedFileCatalog.uploadKey(peer: upload.peer, id: upload.id)] = .some(record.bytes.flatMap(Self.decodePartial))
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

    /// ARGV: id, record, upload key, sha256, size, ts, max bytes. The same upload stored before
    /// answers {0, its record}; else {1, record, content no longer used...}.
    static let storeFileScript = fileFunctions + """
        local earlier = redis.call('HGET', KEYS[2], ARGV[3])
        if earlier then
          local record = redis.call('HGET', KEYS[1], earlier)
          if record then return {0, record} end
        end
        redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
        redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
        if redis.call('HINCRBY', KEYS[3], ARGV[4], 1) == 1 then redis.call('INCRBY', KEYS[4], ARGV[5]) end
        redis.call('ZADD', KEYS[6], ARGV[6], ARGV[1])
        holdFile(ARGV[1], ARGV[2], 1)
        local answer = {1, ARGV[2]}
        evict(tonumber(ARGV[7]), ARGV[1], answer)
        return answer
        """

    /// `EVAL script` over the file keys with `arguments`.
    static func fileScript(_ script: String, _ arguments: [String]) -> RedisCommand {
        RedisCommand(arguments: ["EVAL", script, String(fileKeys.count)].map { Array($0.utf8) } + fileKeys.map { Array($0.utf8) }
                     + arguments.map { Array($0.utf8) })
    }

    /// A finished upload's record: a durable write (its uploader is told the file is stored).
    func storeFileRecord(_ token: UInt64, _ file: StoredFile, maxBytes: Int64) {
        let arguments = [file.id, Self.encode(file), Self.uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.sha256,
                         String(file.size), String(file.ts), String(maxBytes)]
        client.send(Self.fileScript(Self.storeFileScript, arguments), key: Self.fileKeys[0], durable: true) { [weak self] result in
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
    /// reason: a lost one only makes its resume start from 0). A save makes room for what it
    /// charges under `maxBytes`; content that left unused is reported.
    func writePartials(_ writes: [PartialUploadWrite], maxBytes: Int64, attempt: Int = 0) {
        for write in writes {
            var arguments: [String]
            switch write {
            case .save(let partial):
                arguments = ["save", partial.key, Self.encode(partial), Self.uploadKey(peer: partial.peer, id: partial.id), String(partial.updated),
                             String(maxBytes), FileOwner.party(owner: partial.owner, address: partial.address)]
            case .remove(let key):
                arguments = ["remove", key]
            }
            client.send(Self.fileScript(Self.writePartialScript, arguments), key: Self.fileKeys[0]) { [weak self] result in
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

    /// Before this node takes hellos: a store written before parties gets them, and its `--files`
    /// folder must be the one the other nodes use (a node on a folder of its own would announce
    /// files it cannot serve, and serve none of theirs). `done(false)`: Redis did not answer, try
    /// again. A folder of its own is reported (``ClusterReport/foreignFilesFolder(_:)``) instead.
    func prepareFiles(_ done: @escaping (Bool) -> Void) {
        client.send(Self.fileScript(Self.buildPartiesScript, []), key: Self.fileKeys[0]) { [weak self] result in
            guard let self, case .success = RoomEventLog.storeResult(result) else { return done(false) }
            client.send(RedisCommand("EVAL", Self.claimFolderScript, "1", Self.folderKey, filesFolderMark),
                        key: Self.folderKey) { [weak self] result in
                guard let self, case .success(let reply) = RoomEventLog.storeResult(result), let known = reply.text else { return done(false) }
                if known == filesFolderMark { return done(true) }
                report(.foreignFilesFolder(known))
            }
        }
    }

    /// The mark of the `--files` folder the nodes share (``FileDirectory/mark()``), set by the
    /// first node that starts.
    static let folderKey = "{files}:folder"

    /// KEYS: the folder key. ARGV: this node's folder mark. Answers the nodes' mark (this one when
    /// there was none).
    static let claimFolderScript = """
        local known = redis.call('GET', KEYS[1])
        if known then return known end
        redis.call('SET', KEYS[1], ARGV[1])
        return ARGV[1]
        """

    /// Interrupted uploads not resumed within `lifetime` (by any node): their records and bytes
    /// go. Every node runs it now and then; a record removed by another first is nothing here.
    func expirePartials(olderThan lifetime: QuicDuration) {
        let cutoff = unixMilliseconds() - Int64(lifetime.nanoseconds / 1_000_000)
        client.send(RedisCommand("ZRANGEBYSCORE", "{files}:partial-age", "-inf", String(cutoff), "LIMIT", "0", "1000"),
                    key: Self.fileKeys[0]) { [weak self] result in
            guard let self, case .success(let reply) = RoomEventLog.storeResult(result) else { return }
            let keys = reply.elements?.compactMap(\.text) ?? []
            guard !keys.isEmpty else { return }
            writePartials(keys.map { .remove(key: $0) }, maxBytes: .max)
            report(.partialsExpired(keys))
        }
    }
}
