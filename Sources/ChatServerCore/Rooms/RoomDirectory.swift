/// The answer to `rooms`, built and encoded once and shared by every asker (issue 23 item 16):
/// listing thousands of rooms is a sort and a 60 KB encode, which one client asking within its
/// flood limit, or a few hundred, used to pay for on every request. The cached answer is served
/// as long as no room changed (``ChatServerState/directoryChanges``: any change of a room's
/// members or settings), and while rooms keep changing it is rebuilt at most once per
/// ``rebuildInterval``, so building the list costs at most one build a second whatever the
/// rate of requests, and an answer is never older than a second when anything changed.
struct RoomDirectory {
    /// The longest a listing is served after the rooms changed, and the shortest time between two
    /// builds: fixed, since a second of staleness is nothing to a person browsing rooms, and a
    /// bound that cannot be configured away keeps the cost bounded.
    static let rebuildInterval: Int64 = 1_000

    private var cached: (payload: SharedPayload, builtAt: Int64, changes: UInt64)?
    /// Listings built since the start (the others were served from the cache).
    private(set) var builds = 0

    /// The listing for a request at `now`, with `changes` the rooms' change count: the cached one,
    /// or one `build` makes.
    mutating func answer(now: Int64, changes: UInt64, build: () -> SharedPayload) -> SharedPayload {
        if let cached, now >= cached.builtAt, cached.changes == changes || now - cached.builtAt < Self.rebuildInterval {
            return cached.payload
        }
        let payload = build()
        builds += 1
        cached = (payload, now, changes)
        return payload
    }
}
