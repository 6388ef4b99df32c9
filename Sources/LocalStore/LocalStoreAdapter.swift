import ChatServerCore

/// The stores of one server (no `--cluster`): it answers the core's store actions as the shared
/// store does (so far the room log, room state, policy changes, receipts of `dm`s and accounts:
/// ``ServerAction/appendRoomEvent(_:)``, `readRoomEvents`, `followRoom`, `unfollowRoom`,
/// `readRoomState`, `writePolicy`, `lookUpDirectReceipt`, `storeDirectReceipt`, `loadAccounts`,
/// `writeAccount`, `reserveLoginAttempt`, `releaseLoginAttempt`, the leases and the file records:
/// ``perform(_:now:)``),
/// with the disk on the ``StoreWorker``'s thread. Loop thread only; it touches
/// memory only.
///
/// When an event is delivered and when it is acknowledged (docs/PROTOCOL.md, "One server's room
/// log"): an append gets its seq here at once and is delivered to the room's members at once
/// (without its append's token, so its `ack` does not go with it); the append's outcome, and so
/// the sender's `ack`, comes only when the worker has committed it. A slow disk delays acks, not
/// the conversation; an acknowledged message is on disk.
///
/// Seqs are reserved durably ahead of use (``defaultReservationRange`` at a time, the next range asked
/// for when half of the current one is used): a seq is handed out only under a committed
/// reservation, so after `kill -9` the room goes on above every seq a member may have seen,
/// never reusing one (a gap instead, which clients page over as after a trim).
public final class LocalStoreAdapter {
    /// Seqs reserved at a time per room, by default.
    public static let defaultReservationRange: Int64 = 1000
    /// Recent events kept per room, to deliver a newly followed room's events from its first
    /// member's `joined` on without a read.
    public static let tailLimit = 64

    private let worker: StoreWorker
    /// Seqs reserved at a time per room.
    public let reservationRange: Int64
    /// Appends not yet committed, at most (the core's `--pending-append-limit` bounds it first).
    public let pendingLimit: Int

    private var rooms: [String: RoomLine] = [:]
    /// Room messages' seqs and `dm`s' stamps by `PEER:ID`, for resends.
    private var receipts: ReceiptMemory

    private var nextTicket: UInt64 = 0
    /// By commit ticket: the appends waiting for it, or the reservation it raises.
    private var commits: [UInt64: PendingCommit] = [:]
    /// Reads this log makes itself (to deliver a newly followed room's past), by their token.
    private var followReads: [UInt64: String] = [:]
    private var nextFollowRead: UInt64 = 1 << 63
    /// Appends taken and not yet answered (waiting for a reservation or a commit).
    public private(set) var pending = 0
    /// Receipts remembered for resends (bounded by `receiptLimit`).
    public var receiptCount: Int { receipts.count }
    /// Accounts and addresses whose recent wrong passwords are counted (bounded by `loginFailureKeys` each).
    public var trackedLoginFailureKeys: Int { loginFailures[.password]?.counts.trackedKeys ?? 0 }
    /// Rooms nobody here follows, longest idle first; beyond `idleRoomLimit` the oldest is
    /// forgotten (its line here, and on a disk in memory its events). Nil: every room is kept
    /// (the `--db` file keeps each room's reservation, which a forgotten line would need again).
    public var idleRoomLimit: Int?
    private var idleRooms = IdleRooms()
    /// The highest seq a forgotten room had reserved: a room met anew goes on above it, so no
    /// seq a member of a forgotten room saw is handed out again.
    private var forgottenFloor: Int64 = 0

    /// Password attempts counted (PROTOCOL.md section 7), with the limit and window they count by.
    /// And registrations per address, the same way (``LoginAttempt/Kind``).
    private var loginFailures: [LoginAttempt.Kind: (counts: LoginFailures, limit: Int, window: Int64)] = [:]
    private let loginFailureKeys: Int
    /// Reserved attempts as counted (with their time), by ticket, to take the very count back.
    private var reservedAttempts: OldestFirstMap<UInt64, LoginAttempt>
    private var leases: LocalLeases

    private enum PendingCommit {
        case appends([WaitingAppend])
        case reservation(room: String, through: Int64)
    }

    /// An append whose outcome waits for a commit: its own event's, or (a resend) the commit of
    /// everything queued before it.
    private struct WaitingAppend {
        let token: UInt64
        let room: String
        let seq: Int64
        let dedupe: String?
        let duplicate: Bool
        /// The owner a `claim` set in memory: taken back if its commit fails.
        var claimed: String? = nil
    }

    /// `reserved` and `receipts` come from the disk when the server starts (before it serves).
    public init(worker: StoreWorker, reserved: [String: Int64], receipts: [MessageReceipt], pendingLimit: Int = 100_000,
                receiptLimit: Int = 100_000, reservationRange: Int64 = defaultReservationRange, loginFailureKeys: Int = 100_000,
                node: String = "local", peerDigest: @escaping @Sendable (String) -> String = { $0 }, idleRoomLimit: Int? = nil) {
        precondition(reservationRange >= 2, "a reservation covers at least two seqs")
        self.worker = worker
        self.reservationRange = reservationRange
        self.pendingLimit = pendingLimit
        self.receipts = ReceiptMemory(limit: receiptLimit)
        self.loginFailureKeys = loginFailureKeys
        self.idleRoomLimit = idleRoomLimit
        reservedAttempts = OldestFirstMap(limit: loginFailureKeys)
        leases = LocalLeases(node: node, digest: peerDigest)
        for (room, seq) in reserved { rooms[room] = RoomLine(last: seq, reserved: seq) }
        for receipt in receipts {
            self.receipts.remember(ReceiptMemory.key(peer: receipt.peer, id: receipt.id), .init(room: receipt.room, seq: receipt.seq, ts: receipt.ts))
        }
    }

    // MARK: The core's actions

    /// Performs one of the core's store actions: its answers now (the glue hands them to the core
    /// on the loop's next turn, as the Redis link's), the rest through ``workerFinished(_:)``.
    /// Nil: not a store action.
    public func perform(_ action: ServerAction, now: Int64) -> [LocalStoreAnswer]? {
        switch action {
        case .appendRoomEvent(let append): return self.append(append)
        case .readRoomEvents(let read): self.read(read)
        case .followRoom(let room, let after): return follow(room, after: after)
        case .unfollowRoom(let room): unfollow(room)
        case .readRoomState(let token, let room): readState(token, room: room)
        case .writePolicy(let change): writePolicy(change)
        case .lookUpDirectReceipt(let token, let peer, let id): return lookUpDirectReceipt(token, peer: peer, id: id)
        case .storeDirectReceipt(let peer, let id, let ts): storeDirectReceipt(peer: peer, id: id, ts: ts)
        case .loadAccounts(let token, let names): loadAccounts(token, names: names)
        case .writeAccount(let token, let write): writeAccount(token, write)
        case .reserveLoginAttempt(let attempt, let limit, let window):
            return reserveLoginAttempt(attempt, limit: limit, windowMilliseconds: window, now: now)
        case .releaseLoginAttempt(let attempt): releaseLoginAttempt(attempt)
        case .claimHello(let token, let peer, let client, let account, let candidates, let address):
            let claim = leases.claimHello(peer: peer, client: client, account: account, candidates: candidates, address: address)
            return [.helloClaimed(token, .answered(claim))]
        case .claimNick(let token, let candidates, let peer):
            return [.nickClaimed(token, .answered(leases.claimNick(candidates: candidates, peer: peer)))]
        case .recordPeer(let peer, let client, let nick, let account, let address):
            leases.recordPeer(peer, client: client, nick: nick, account: account, address: address)
        case .releaseIdentity(let peer, let client, let nick, let andPeer):
            leases.release(peer: peer, client: client, nick: nick, andPeer: andPeer)
        case .lookUpNick(let token, let nick): return [.nickLookedUp(token, .answered(leases.nickHolder(nick)))]
        case .lookUpDevice(let token, let nick): return [.deviceLookedUp(token, .answered(leases.deviceHolder(nick)))]
        // One server: no other node to tell (and the core sends to a node only when a lookup named
        // another one, which none here does).
        case .publishMember, .publishTyping, .sendToNode: break
        case .loadFiles(let token, let query): worker.submit(.loadFiles(token: token, query))
        case .writePartialUploads(let writes, let maxBytes): worker.submit(.writePartialUploads(writes, maxBytes: maxBytes))
        case .storeFileRecord(let token, let file, let maxBytes): worker.submit(.storeFileRecord(token: token, file, maxBytes: maxBytes))
        case .send, .datagram, .close, .password, .endFileStream, .receiveUpload, .abandonUpload, .sendDownload, .discardFileBytes,
             .consoleLine, .log:
            return nil
        }
        return []
    }

    public func append(_ append: RoomEventAppend) -> [LocalStoreAnswer] {
        if let key = append.dedupe, let seq = receipts[key]?.seq {
            // A resend: answered once everything queued before it is committed (its original included).
            commit(AppendBatch(), answering: WaitingAppend(token: append.token, room: append.room, seq: seq, dedupe: key, duplicate: true))
            return []
        }
        guard pending < pendingLimit else {
            return [.appended(append.token, .refused("the store's queue is full (\(pendingLimit) events)"))]
        }
        pending += 1
        var line = rooms[append.room] ?? newLine()
        defer { rooms[append.room] = line }
        if !line.waiting.isEmpty || line.last >= line.reserved {
            line.waiting.append(append)
            return reserve(append.room, &line)
        }
        return admit(append, &line) + reserve(append.room, &line)
    }

    /// Whether anything given to the worker is not yet answered (appends waiting for their
    /// reservation, commits, reads): a stopping server waits for it, so that the events of its
    /// last moments (its members' `left shutdown`) are on disk before the process ends.
    public var hasWorkInFlight: Bool { pending > 0 || !commits.isEmpty }

    public func read(_ read: RoomEventRead) {
        worker.submit(.read(read))
    }

    /// Delivers the room's events after `after` from now on: those it still holds at once, older
    /// ones read first.
    public func follow(_ room: String, after: Int64) -> [LocalStoreAnswer] {
        var line = rooms[room] ?? newLine()
        defer { rooms[room] = line }
        line.followed = true
        idleRooms.remove(room)
        let held = line.tail.filter { $0.seq > after }
        let oldestHeld = held.first?.seq ?? (line.last + 1)
        guard oldestHeld > after + 1, after < line.last else { return held.map(LocalStoreAnswer.delivered) }
        // Older events than the tail: read them, and hold live ones until they are delivered.
        let token = nextFollowRead
        nextFollowRead += 1
        line.reading = (token, held)
        followReads[token] = room
        worker.submit(.read(RoomEventRead(token: token, room: room, after: after, before: oldestHeld, limit: Int(Int32.max),
                                          newest: false)))
        return []
    }

    /// Stops delivering the room's events; its recent ones are let go (a later follow reads what it needs).
    public func unfollow(_ room: String) {
        rooms[room]?.followed = false
        rooms[room]?.reading = nil
        rooms[room]?.untilCommit = nil
        rooms[room]?.tail = []
        noteIdle(room)
    }

    /// A room with a line here and nobody following it: forgotten once it is the longest idle beyond the bound.
    private func noteIdle(_ room: String) {
        guard let idleRoomLimit, let line = rooms[room], !line.followed else { return }
        idleRooms.insert(room)
        while idleRooms.count > idleRoomLimit, let oldest = idleRooms.popOldest() { forget(oldest) }
    }

    /// Lets an idle room go: what a member may have seen of it stays below `forgottenFloor`. A
    /// room with appends waiting for a reservation is kept (it is not idle yet).
    private func forget(_ room: String) {
        guard let line = rooms[room], line.waiting.isEmpty, line.requested == nil, !line.followed else { return }
        forgottenFloor = max(forgottenFloor, line.reserved, line.last)
        rooms[room] = nil
        worker.submit(.forget(room: room))
    }

    private func newLine() -> RoomLine {
        RoomLine(last: forgottenFloor, reserved: forgottenFloor)
    }

    /// Rooms this adapter holds a line for (tests watch the bound).
    public var roomCount: Int { rooms.count }

    /// Reads the room's settings; answered with its members here and its seq as of the answer.
    public func readState(_ token: UInt64, room: String) {
        worker.submit(.readSettings(token: token, room: room))
    }

    /// Stores a change no room event announces (an invite, a server ban or its lifting); nobody waits for it.
    public func writePolicy(_ change: PolicyChange) {
        commit(AppendBatch(policies: [change]), answering: nil)
    }

    /// The stamp of a `dm` this peer sent with this id, if its receipt is kept.
    public func lookUpDirectReceipt(_ token: UInt64, peer: String, id: String) -> [LocalStoreAnswer] {
        let entry = receipts[ReceiptMemory.key(peer: peer, id: id)]
        return [.directReceiptLookedUp(token, .answered(entry.map { MessageReceipt(peer: peer, id: id, room: $0.room, seq: $0.seq, ts: $0.ts) }))]
    }

    /// A `dm`'s receipt: answered from memory at once, on disk with the next round; nobody waits for it.
    public func storeDirectReceipt(peer: String, id: String, ts: Int64) {
        receipts.remember(ReceiptMemory.key(peer: peer, id: id), .init(room: nil, seq: nil, ts: ts))
        commit(AppendBatch(receipts: [MessageReceipt(peer: peer, id: id, ts: ts)]), answering: nil)
    }

    /// Reads accounts and their certificates; answered in the worker's order (after every write asked for before).
    public func loadAccounts(_ token: UInt64, names: [String]) {
        worker.submit(.loadAccounts(token: token, names: names))
    }

    public func writeAccount(_ token: UInt64, _ write: AccountWrite) {
        worker.submit(.writeAccount(token: token, write))
    }

    /// Counts a password attempt before its hash runs, unless its account or address has had
    /// `limit` within the window: memory only (one server), answered at once.
    public func reserveLoginAttempt(_ attempt: LoginAttempt, limit: Int, windowMilliseconds: Int64, now: Int64) -> [LocalStoreAnswer] {
        if loginFailures[attempt.kind]?.limit != limit || loginFailures[attempt.kind]?.window != windowMilliseconds {
            // A reload changed the limit: counting starts again under the new one.
            loginFailures[attempt.kind] = (LoginFailures(limit: limit, windowMilliseconds: windowMilliseconds, keyLimit: loginFailureKeys),
                                           limit, windowMilliseconds)
        }
        var counted = attempt
        guard loginFailures[attempt.kind]!.counts.reserve(&counted, now: now) else { return [.loginAttemptReserved(attempt, .locked)] }
        reservedAttempts.remember(counted, forKey: attempt.ticket)
        // The core matches the answer against the attempt it asked for.
        return [.loginAttemptReserved(attempt, .reserved)]
    }

    /// Takes a counted attempt back (its password was right, or it was never checked).
    public func releaseLoginAttempt(_ attempt: LoginAttempt) {
        guard let counted = reservedAttempts[attempt.ticket] else { return }
        reservedAttempts.forget(attempt.ticket)
        loginFailures[attempt.kind]?.counts.release(counted)
    }

    /// Interrupted uploads not touched within `olderThan` milliseconds of `now` go (the glue asks now and then).
    public func expirePartials(olderThan: Int64, now: Int64) {
        worker.submit(.expirePartials(before: now - olderThan))
    }

    /// The room's members on this server, by nick key.
    public func members(of room: String) -> [MemberRecord] {
        rooms[room]?.members.records ?? []
    }

    // MARK: The worker's outcomes

    public func workerFinished(_ outcome: StoreWorker.Outcome) -> [LocalStoreAnswer] {
        switch outcome {
        case .committed(let tickets, let failure):
            return tickets.flatMap { committed($0, failure: failure) }
        case .read(let read, let events):
            if let room = followReads.removeValue(forKey: read.token) { return followRead(room, token: read.token, events ?? []) }
            return [.read(read.token, events.map { $0.map { shared($0) } })]
        case .settings(let token, let room, let settings):
            var line = rooms[room] ?? newLine()
            // The owner on disk, for a `claim`'s condition (one stored since is newer).
            if line.owner == nil { line.owner = settings?.owner }
            rooms[room] = line
            // A join refused after its read follows nothing: the line is idle from now.
            noteIdle(room)
            return [.roomState(token, seq: line.last, line.members.records, settings)]
        case .accountsLoaded(let token, let accounts):
            return [.accountsLoaded(token, accounts)]
        case .accountWritten(let token, let outcome, let write):
            return [.accountWritten(token, outcome, write)]
        case .filesLoaded(let token, let loaded):
            return [.filesLoaded(token, loaded)]
        case .fileRecordStored(let token, let outcome):
            return [.fileRecordStored(token, outcome)]
        case .contentEvicted(let unused):
            return [.contentEvicted(unused)]
        case .partialsExpired(let keys):
            return [.partialsExpired(keys)]
        }
    }

    private func committed(_ ticket: UInt64, failure: String?) -> [LocalStoreAnswer] {
        switch commits.removeValue(forKey: ticket) {
        case .appends(let appends):
            // A settings change's event, and those behind it, are shown first: its answer before its ack.
            let shown = Set(appends.map(\.room)).sorted().flatMap { room in rooms[room]?.committed(ticket) ?? [] }
            return shown + appends.map { answer($0, failure: failure) }
        case .reservation(let room, let through):
            guard var line = rooms[room] else { return [] }
            defer { rooms[room] = line }
            line.requested = nil
            guard failure == nil else {
                // Nothing was stored of what waits for it: the senders are told so, and may resend.
                let waiting = line.waiting
                line.waiting = []
                pending -= waiting.count
                return waiting.map { .appended($0.token, .refused("the room's seqs could not be reserved: \(failure!)")) }
            }
            line.reserved = max(line.reserved, through)
            var out: [LocalStoreAnswer] = []
            while !line.waiting.isEmpty, line.last < line.reserved {
                out += admit(line.waiting.removeFirst(), &line)
            }
            return out + reserve(room, &line)
        case nil:
            return []
        }
    }

    private func answer(_ append: WaitingAppend, failure: String?) -> LocalStoreAnswer {
        if append.duplicate {
            // Its original is answered first (an earlier ticket): a failed one forgot its key.
            guard failure == nil, let key = append.dedupe, receipts[key]?.seq == append.seq else {
                return .appended(append.token, .failed(failure ?? "the message's first copy was not stored"))
            }
            return .appended(append.token, .stored(seq: append.seq, duplicate: true, firstTs: receipts[key]?.ts))
        }
        pending -= 1
        if let failure {
            // Members saw it, the disk may not have it: the sender resends, under a new seq.
            if let key = append.dedupe { receipts.forget(key) }
            if let claimed = append.claimed, rooms[append.room]?.owner == claimed { rooms[append.room]?.owner = nil }
            return .appended(append.token, .failed(failure))
        }
        return .appended(append.token, .stored(seq: append.seq, duplicate: false))
    }

    private func followRead(_ room: String, token: UInt64, _ events: [StoredEvent]) -> [LocalStoreAnswer] {
        // A follow given up (or made again) meanwhile has no use for it.
        guard var line = rooms[room], let reading = line.reading, reading.token == token else { return [] }
        let held = reading.held
        defer { rooms[room] = line }
        line.reading = nil
        let read = events.map { shared($0) }
        let firstHeld = held.first?.seq ?? Int64.max
        return (read.filter { $0.seq < firstHeld } + held).map(LocalStoreAnswer.delivered)
    }

    // MARK: Sequencing

    /// An append's turn, in the room's order: its condition and membership change, then its seq.
    private func admit(_ append: RoomEventAppend, _ line: inout RoomLine) -> [LocalStoreAnswer] {
        if case .owner(_, let account)? = append.policy {
            if let owner = line.owner {
                pending -= 1
                return [.appended(append.token, .settingTaken(owner))]
            }
            line.owner = account
        }
        switch line.members.apply(append.membership) {
        case .unchanged:
            pending -= 1
            return [.appended(append.token, .stored(seq: 0, duplicate: false))]
        case .adopted:
            pending -= 1
            return [.appended(append.token, .stored(seq: line.last, duplicate: true))]
        case .changed:
            return sequence(append, &line)
        }
    }

    /// Gives the append its seq, delivers it (if the room is followed) and hands it to the worker.
    private func sequence(_ append: RoomEventAppend, _ line: inout RoomLine) -> [LocalStoreAnswer] {
        line.last += 1
        let seq = line.last
        let payload = append.beforeSeq + Array(String(seq).utf8) + append.afterSeq
        let event = SharedRoomEvent(room: append.room, seq: seq, kind: append.kind, origin: append.origin, payload: payload,
                                    memberStatus: append.memberStatus)
        line.tail.append(event)
        if line.tail.count > Self.tailLimit { line.tail.removeFirst(line.tail.count - Self.tailLimit) }
        if let key = append.dedupe { receipts.remember(key, .init(room: append.room, seq: seq, ts: append.ts)) }
        let batch = AppendBatch(events: [.init(room: append.room, seq: seq, kind: append.kind, payload: payload, dedupe: append.dedupe)],
                                policies: append.policy.map { [$0] } ?? [])
        var waiting = WaitingAppend(token: append.token, room: append.room, seq: seq, dedupe: append.dedupe, duplicate: false)
        if case .owner(_, let account)? = append.policy { waiting.claimed = account }
        let ticket = commit(batch, answering: waiting)
        // A change of the room's settings is its asker's answer: shown once on disk, and the
        // room's later events behind it (docs/PROTOCOL.md, "One server's room log").
        return line.deliver(event, afterCommit: append.policy != nil ? ticket : nil)
    }

    /// Asks for the room's next range of seqs when half of the current one is used.
    private func reserve(_ room: String, _ line: inout RoomLine) -> [LocalStoreAnswer] {
        guard line.requested == nil, line.last >= line.reserved - reservationRange / 2 else { return [] }
        let through = max(line.reserved, line.last) + reservationRange
        line.requested = through
        nextTicket += 1
        commits[nextTicket] = .reservation(room: room, through: through)
        worker.submit(.commit(ticket: nextTicket, AppendBatch(reservations: [room: through])))
        return []
    }

    @discardableResult
    private func commit(_ batch: AppendBatch, answering append: WaitingAppend?) -> UInt64 {
        nextTicket += 1
        commits[nextTicket] = .appends(append.map { [$0] } ?? [])
        worker.submit(.commit(ticket: nextTicket, batch))
        return nextTicket
    }

    /// A stored event as the core takes it; the origin is known while the event is recent.
    private func shared(_ event: StoredEvent) -> SharedRoomEvent {
        let origin = rooms[event.room]?.tail.first { $0.seq == event.seq }?.origin
        return SharedRoomEvent(room: event.room, seq: event.seq, kind: event.kind, origin: origin,
                               payload: event.message(replay: false).encodedDatagram())
    }
}
