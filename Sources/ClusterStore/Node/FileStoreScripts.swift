import RedisClient

/// The files store's scripts and keys in Redis, all in the slot `{files}` so one script stores a record and evicts
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
public enum FileStoreScripts {
    public static let keys = ["{files}:records", "{files}:uploads", "{files}:content", "{files}:bytes", "{files}:owners", "{files}:order",
                           "{files}:partials", "{files}:partial-of", "{files}:partial-owners", "{files}:partial-age",
                           "{files}:partial-counts", "{files}:parties", "{files}:parties-built"]

    /// Lua shared by the scripts below: the n-th TAB-separated field of a record (nil past its
    /// last); what a file and an upload count against; eviction.
    public static let functions = """
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

        -- The oldest file of `party` but `skip`, and when it was stored.
        local function oldestOf(party, skip)
          local oldest = redis.call('ZRANGE', partyOrder(party), 0, 1, 'WITHSCORES')
          for j = 1, #oldest, 2 do
            if oldest[j] ~= skip then return oldest[j], tonumber(oldest[j + 1]) end
          end
        end

        -- The oldest file but `skip` of the party holding the most bytes (among parties holding as
        -- much, the one whose oldest file is the oldest), the party, its bytes and the file's time.
        local function largestHolder(skip)
          local best, bestParty, bestHeld, bestTs
          local start = 0
          while true do
            local parties = redis.call('ZREVRANGE', KEYS[12], start, start + 15, 'WITHSCORES')
            if #parties == 0 then return best, bestParty, bestHeld, bestTs end
            for i = 1, #parties, 2 do
              local held = tonumber(parties[i + 1])
              if bestHeld and held < bestHeld then return best, bestParty, bestHeld, bestTs end
              local id, ts = oldestOf(parties[i], skip)
              if id and (not bestHeld or ts < bestTs) then best, bestParty, bestHeld, bestTs = id, parties[i], held, ts end
            end
            start = start + 16
          end
        end

        -- The newcomers to a file stored at `ts` (exempt parties whose files are all newer, the
        -- guests always, an uploader holding no file yet): their bytes, their oldest file but
        -- `skip` and its party. Reads every party: only when an exempt account's file is next.
        local function newcomersTo(ts, skip)
          local held, best, bestParty, bestTs = 0
          local parties = redis.call('ZRANGE', KEYS[12], 0, -1, 'WITHSCORES')
          for i = 1, #parties, 2 do
            local party = parties[i]
            if string.sub(party, 1, 8) ~= 'address:' then
              local first = redis.call('ZRANGE', partyOrder(party), 0, 0, 'WITHSCORES')
              if party == 'guests' or #first == 0 or tonumber(first[2]) > ts then
                held = held + tonumber(parties[i + 1])
                local id, idTs = oldestOf(party, skip)
                if id and (not bestTs or idTs < bestTs) then best, bestParty, bestTs = id, party, idTs end
              end
            end
          end
          return held, best, bestParty
        end

        -- The file eviction takes next, never `skip`, and its party (FileEvictionRule): the
        -- largest holder's oldest, or the newcomers' oldest when that holder is an account of an
        -- exempt address and they hold at least as much.
        local function nextEviction(skip)
          local best, bestParty, bestHeld, bestTs = largestHolder(skip)
          if best and string.sub(bestParty, 1, 8) ~= 'address:' and bestParty ~= 'guests' then
            local held, theirs, theirParty = newcomersTo(bestTs, skip)
            if theirs and held >= bestHeld then return theirs, theirParty end
          end
          return best, bestParty
        end

        -- Removes stored files while distinct content and every upload's charge but `except` bytes
        -- pass `maxBytes`; appends to `answer` the content no record uses any more.
        local function evict(maxBytes, skip, answer, except)
          while tonumber(redis.call('GET', KEYS[4]) or '0') + tonumber(redis.call('HGET', KEYS[9], '*') or '0') - (except or 0) > maxBytes do
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
    public static let writePartialScript = functions + """
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
    public static let buildPartiesScript = functions + """
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

    /// ARGV: the number of ids, the ids, the number of upload keys, the keys, the scopes
    /// (``FileScope/key``). Answers {records ('' when none), each upload's record, each scope's
    /// file bytes, each upload's interrupted upload, each scope's charged bytes, each scope's
    /// uploads}.
    public static let loadFilesScript = """
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

    /// ARGV: id, record, upload key, sha256, size, ts, max bytes. The same upload stored before
    /// answers {0, its record}; else {1, record, content no longer used...}.
    public static let storeFileScript = functions + """
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
        -- Its own upload's charge still counts until the node removes that record: not twice (the
        -- file's bytes and the charge), or a file would go one upload early.
        local own = redis.call('HGET', KEYS[8], ARGV[3])
        local upload = own and redis.call('HGET', KEYS[7], own)
        evict(tonumber(ARGV[7]), ARGV[1], answer, upload and tonumber(field(upload, 13) or field(upload, 8)) or 0)
        return answer
        """

    /// `EVAL script` over the file keys with `arguments`.
    public static func script(_ script: String, _ arguments: [String]) -> RedisCommand {
        RedisCommand(arguments: ["EVAL", script, String(keys.count)].map { Array($0.utf8) } + keys.map { Array($0.utf8) }
                     + arguments.map { Array($0.utf8) })
    }

    /// KEYS: the folder key. ARGV: this node's folder mark. Answers the nodes' mark (this one when
    /// there was none).
    public static let claimFolderScript = """
        local known = redis.call('GET', KEYS[1])
        if known then return known end
        redis.call('SET', KEYS[1], ARGV[1])
        return ARGV[1]
        """

    /// Gives a store written before parties what eviction and the limits count (``buildPartiesScript``).
    public static var buildParties: RedisCommand { script(buildPartiesScript, []) }
}
