import ChatServerCore
import ClusterStore
import QuicEngine
import RedisClient

/// A node's connection to the shared store (`--cluster`): performs the core's room-log actions on
/// Redis (``RoomEventLog``) and follows the rooms with members here (``RoomFeed``), handing every
/// outcome back to the app as core input. Loop thread only.
final class ClusterLink {
    let options: ClusterOptions
    let client: RedisClient
    let log: RoomEventLog
    private(set) var feed: RoomFeed!
    /// The node's answers for the core: appended, read, delivered.
    private let report: (ClusterReport) -> Void
    private let logger: (LogLevel, String, [String: String]) -> Void
    private let loop: EventLoop
    /// How long a read is retried while Redis is unavailable before the core hears it failed.
    static let readPatience = QuicDuration.seconds(5)
    static let readRetryDelay = QuicDuration.milliseconds(200)

    enum ClusterReport {
        case appended(UInt64, RoomAppendOutcome)
        case read(UInt64, [SharedRoomEvent]?)
        case delivered(SharedRoomEvent)
        case members(UInt64, seq: Int64, [MemberRecord]?)
    }

    init(options: ClusterOptions, historyLength: Int, loop: EventLoop, logger: @escaping (LogLevel, String, [String: String]) -> Void,
         report: @escaping (ClusterReport) -> Void) {
        self.options = options
        self.loop = loop
        self.logger = logger
        self.report = report
        var feedForward: ((RedisClientEvent) -> Void)?
        client = RedisClient(loop: loop, topology: options.topology, settings: RedisConnectionSettings(database: options.database)) { event in
            feedForward?(event)
        }
        log = RoomEventLog(client: client, historyLength: historyLength)
        feed = RoomFeed(log: log, loop: loop, deliver: { [unowned self] room, event in
            guard let shared = sharedEvent(room: room, event) else {
                return logger(.error, "undecodable room event", ["room": room, "seq": String(event.seq)])
            }
            report(.delivered(shared))
        }, skipped: { room, after, before in
            logger(.warning, "room events lost to trimming", ["room": room, "after": String(after), "before": String(before)])
        })
        feedForward = { [unowned self] event in handle(event) }
    }

    func start() { client.start() }

    func stop() { client.stop() }

    private func handle(_ event: RedisClientEvent) {
        switch event {
        case .connected(let server):
            logger(.info, "redis connected", ["server": "\(server)"])
        case .disconnected(let server, let failure):
            logger(.warning, "redis unreachable", ["server": "\(server)", "error": failure.description])
        case .slotMapUpdated(let masters):
            logger(.info, "redis cluster slots", ["masters": String(masters)])
        case .subscriber, .subscriptionsInterrupted:
            break
        }
        feed.handle(event)
    }

    // MARK: The core's actions

    func append(_ append: RoomEventAppend) {
        let meta = Array("\(append.kind.rawValue)/\(options.node)/\(append.origin.map(String.init) ?? "")".utf8)
        log.append(room: append.room, event: append.beforeSeq, afterSeq: append.afterSeq, meta: meta,
                   members: append.membership.map(membersChange), dedupe: append.dedupe) {
            [report] result in
            switch result {
            case .success(let stored): report(.appended(append.token, .stored(seq: stored.seq, duplicate: stored.duplicate)))
            case .failure(let error): report(.appended(append.token, .failed("\(error)")))
            }
        }
    }

    func read(_ read: RoomEventRead, startedAt: QuicTime = .now()) {
        let answer: (Result<[RoomEvent], RoomStoreError>) -> Void = { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let events):
                report(.read(read.token, events.compactMap { self.sharedEvent(room: read.room, $0) }))
            case .failure(.unavailable) where QuicTime.now() < startedAt + Self.readPatience:
                // Reads change nothing: a retry is safe, and the client waits for this one.
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.read(read, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "room read failed", ["room": read.room, "error": "\(error)"])
                report(.read(read.token, nil))
            }
        }
        if read.newest {
            log.newestEvents(room: read.room, after: read.after, before: read.before, limit: read.limit, answer)
        } else {
            log.events(room: read.room, after: read.after ?? 0, limit: read.limit, answer)
        }
    }

    func follow(_ room: String, after: Int64) { feed.follow(room, after: after) }

    func readMembers(_ token: UInt64, room: String, startedAt: QuicTime = .now()) {
        log.members(room: room) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let snapshot):
                let records = snapshot.members.compactMap { memberRecord($0.value) }
                report(.members(token, seq: snapshot.seq, records))
            case .failure(.unavailable) where QuicTime.now() < startedAt + Self.readPatience:
                loop.schedule(at: .now() + Self.readRetryDelay) { [weak self] in self?.readMembers(token, room: room, startedAt: startedAt) }
            case .failure(let error):
                logger(.error, "room members read failed", ["room": room, "error": "\(error)"])
                report(.members(token, seq: 0, nil))
            }
        }
    }

    // MARK: Member records

    /// A member as the room's members hash keeps it: `NODE/CLIENT STATUS NICK ACCOUNT` (`-` for a guest).
    func memberRecordText(_ member: MemberRecord) -> String {
        "\(options.node)/\(member.client.map(String.init) ?? "") \(member.status.rawValue) \(member.nick) \(member.account ?? "-")"
    }

    func memberRecord(_ bytes: [UInt8]) -> MemberRecord? {
        let fields = bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard fields.count == 4, let status = PresenceStatus(rawValue: fields[1]) else { return nil }
        let holder = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        var client: ClientID?
        if holder.count == 2, holder[0] == options.node { client = ClientID(holder[1]) }
        return MemberRecord(nick: fields[2], account: fields[3] == "-" ? nil : fields[3], status: status, client: client)
    }

    private func membersChange(_ change: MembershipChange) -> RoomMembersChange {
        switch change {
        case .add(let member): return .add(key: member.key, record: memberRecordText(member))
        case .remove(let keys): return .remove(keys)
        case .rename(let fromKey, let member): return .rename(from: fromKey, to: member.key, record: memberRecordText(member))
        }
    }

    func unfollow(_ room: String) { feed.unfollow(room) }

    /// A stored or published event as the core takes it: the meta is `KIND/NODE/CLIENT`, the
    /// client only when this node's connection made it.
    private func sharedEvent(room: String, _ event: RoomEvent) -> SharedRoomEvent? {
        let parts = event.meta.split(separator: UInt8(ascii: "/"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let kind = StoredEventKind(rawValue: String(decoding: parts[0], as: UTF8.self)) else { return nil }
        var origin: ClientID?
        if parts[1].elementsEqual(options.node.utf8) { origin = ClientID(String(decoding: parts[2], as: UTF8.self)) }
        return SharedRoomEvent(room: room, seq: event.seq, kind: kind, origin: origin, payload: event.payload)
    }
}
