/// The server-side script that makes a room event: one atomic step in Redis assigns the next
/// seq, appends the event to the room's stream (trimmed) and publishes it, so that every node
/// sees every event with its seq, in one order, and history and live traffic agree.
///
/// KEYS: seq counter, stream, members, settings, and optionally the dedupe key. ARGV: the event, the history length,
/// the channel, the publish command (PUBLISH, or SPUBLISH on a cluster), the dedupe key's
/// lifetime in seconds, the rest of the event (the event is ARGV[1], the seq in decimal, ARGV[6]:
/// the node encodes once, around the seq it does not know yet; empty when the event has no seq),
/// and the event's meta (one token without spaces, opaque here: the node's kind and origin).
/// The stream entry has the fields `e` (the event) and `m` (the meta); the publish is
/// "seq meta event".
///
/// Data lost in place (issue 26, item 2: a FLUSHALL, keys evicted, a failover to a replica that
/// lacked the last writes) is found before anything is stored: ARGV[8] is the highest seq the
/// node knows the room reached (0: none), and a counter below it means the room's data went
/// back; ARGV[9], when not empty, is the store's epoch as the node knows it, checked against the
/// last of KEYS (`{meta}:epoch`, on one Redis only: on a Redis Cluster it lives in another slot).
/// Either answers {0, 5} and stores nothing.
///
/// In the same step the event may change the room's settings hash (KEYS[4]): ARGV[10] `set`
/// (field ARGV[11] = ARGV[12]), `del` (field ARGV[11]), `setnx` (set only while absent: when the
/// field is set, nothing is done and the answer is {0, 4, its value}) or empty; and its members hash (KEYS[3]):
/// ARGV[13] and on, `+ KEY RECORD` adds or replaces a member (when the record it replaces has the
/// same owner, the device that was in the room through another node, no event is stored: the
/// answer is {the room's seq, 3}), `- KEY...` removes members, `~ OLD NEW RECORD` renames one,
/// `-? PREFIX KEY...` removes those whose record starts with PREFIX (a lost node's) and stores
/// nothing at all (answers {0, 2}) when none does; empty: no change. KEYS[5] is the dedupe key,
/// if any. Returns {seq, 1 if it was a duplicate else 0}.
///
/// Trimming is `MAXLEN ~`: Redis drops whole stream nodes (100 entries by default), so a room
/// keeps between N and N + 100 events. The protocol promises at least the last N; every read is
/// bounded by its COUNT. The exact form cost Redis 2.5x the time per XADD and 1.25x per whole
/// script (docs/CLUSTER.md, "Trimming").
///
/// A counter behind the stream (lost alone, or a stream restored from elsewhere) would make XADD
/// refuse the ID: the script then moves the counter past the stream's last entry, so seq never
/// goes back and is never reused.
public enum RoomEventScript {
    public static let source = """
        local keyCount = #KEYS
        if ARGV[9] ~= '' then
          if redis.call('GET', KEYS[keyCount]) ~= ARGV[9] then return {0, 5} end
          keyCount = keyCount - 1
        end
        if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[8]) then return {0, 5} end
        local dedupe = nil
        if keyCount >= 5 then dedupe = KEYS[5] end
        if dedupe then
          local known = redis.call('GET', dedupe)
          if known then return {tonumber(known), 1} end
        end
        if ARGV[10] == 'setnx' then
          local current = redis.call('HGET', KEYS[4], ARGV[11])
          if current then return {0, 4, current} end
        end
        local function owner(record) return string.match(record, '^[^/]*/(%S*)') end
        local op = ARGV[13]
        if op == '-?' then
          local held = {}
          for i = 15, #ARGV do
            local record = redis.call('HGET', KEYS[3], ARGV[i])
            if record and string.sub(record, 1, #ARGV[14]) == ARGV[14] then table.insert(held, ARGV[i]) end
          end
          if #held == 0 then return {0, 2} end
          redis.call('HDEL', KEYS[3], unpack(held))
        elseif op == '+' then
          local current = redis.call('HGET', KEYS[3], ARGV[14])
          redis.call('HSET', KEYS[3], ARGV[14], ARGV[15])
          if current and owner(current) == owner(ARGV[15]) and owner(current) ~= '-' then
            return {tonumber(redis.call('GET', KEYS[1]) or '0'), 3}
          end
        elseif op == '-' then
          redis.call('HDEL', KEYS[3], unpack(ARGV, 14, #ARGV))
        elseif op == '~' then
          redis.call('HDEL', KEYS[3], ARGV[14])
          redis.call('HSET', KEYS[3], ARGV[15], ARGV[16])
        end
        if ARGV[10] == 'set' or ARGV[10] == 'setnx' then
          redis.call('HSET', KEYS[4], ARGV[11], ARGV[12])
        elseif ARGV[10] == 'del' then
          redis.call('HDEL', KEYS[4], ARGV[11])
        end
        local seq = redis.call('INCR', KEYS[1])
        local function event() if ARGV[6] ~= '' then return ARGV[1] .. seq .. ARGV[6] end return ARGV[1] end
        local added = redis.pcall('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], seq .. '-0', 'e', event(), 'm', ARGV[7])
        if type(added) == 'table' and added.err then
          local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
          if #last == 0 then return added end
          local top = tonumber(string.match(last[1][1], '^(%d+)'))
          redis.call('SET', KEYS[1], top + 1)
          seq = top + 1
          redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], seq .. '-0', 'e', event(), 'm', ARGV[7])
        end
        redis.call(ARGV[4], ARGV[3], seq .. ' ' .. ARGV[7] .. ' ' .. event())
        if dedupe then redis.call('SET', dedupe, seq, 'EX', ARGV[5]) end
        return {seq, 0}
        """
}
