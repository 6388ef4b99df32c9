import ChatServerCore
import EventRuntime
import RedisClient

/// A read of a room's events for the core (``RoomEventRead``: a replay or a page of `history`,
/// the newest first; or the events after a seq), decoded as the core takes them (``EventMeta``),
/// retried while Redis is unavailable (``ReadPatience``).
public struct RoomEventsRead: StoreRequest {
    public enum Outcome: Equatable, Sendable {
        case read([SharedRoomEvent])
        /// Logged by the caller; the core hears the read failed.
        case failed(RoomStoreError)
    }

    public let read: RoomEventRead
    let node: String
    let patience: ReadPatience

    public init(_ read: RoomEventRead, node: String, startedAt: MonotonicTime) {
        self.read = read
        self.node = node
        patience = ReadPatience(startedAt: startedAt)
    }

    public func start() -> StoreStep<Outcome> {
        let command = read.newest ? RoomEventLog.newestEventsCommand(room: read.room, after: read.after, before: read.before, limit: read.limit)
            : RoomEventLog.eventsCommand(room: read.room, after: read.after ?? 0, limit: read.limit)
        return .send([StoreCommand(command, key: RoomKeys(room: read.room).events)])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Outcome> {
        switch results[0].flatMap(read.newest ? RoomEventLog.newestEvents : RoomEventLog.events) {
        case .success(let events):
            return .done(.read(events.compactMap { EventMeta.sharedEvent(room: read.room, $0, node: node) }))
        case .failure(let error) where patience.retries(error, now: now):
            return .wait(ReadPatience.retryDelay)
        case .failure(let error):
            return .done(.failed(error))
        }
    }
}

/// A room's state for the core: its seq, its members on every node (``MemberRecordFormat``) and
/// its settings (``PolicyFormat``), read atomically (``RoomEventLog/stateCommand(room:limit:)``),
/// retried while Redis is unavailable (``ReadPatience``).
public struct RoomStateRead: StoreRequest {
    public enum Outcome: Equatable, Sendable {
        case state(seq: Int64, members: [MemberRecord], settings: RoomSettings)
        /// Logged by the caller; the core hears the read failed.
        case failed(RoomStoreError)
    }

    public let room: String
    let format: MemberRecordFormat
    let patience: ReadPatience

    public init(room: String, format: MemberRecordFormat, startedAt: MonotonicTime) {
        self.room = room
        self.format = format
        patience = ReadPatience(startedAt: startedAt)
    }

    public func start() -> StoreStep<Outcome> {
        .send([StoreCommand(RoomEventLog.stateCommand(room: room), key: RoomKeys(room: room).seq)])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Outcome> {
        switch results[0].flatMap(RoomEventLog.roomState) {
        case .success(let state):
            return .done(.state(seq: state.seq, members: state.members.values.compactMap(format.record), settings: PolicyFormat.settings(from: state.settings)))
        case .failure(let error) where patience.retries(error, now: now):
            return .wait(ReadPatience.retryDelay)
        case .failure(let error):
            return .done(.failed(error))
        }
    }
}
