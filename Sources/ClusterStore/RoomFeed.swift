import EventRuntime
import RedisClient

/// A node's live view of the rooms it follows (those with local members): subscribes to each
/// room's channel, runs a ``RoomSequencer`` per room and performs its fills, and hands the owner
/// every event once, in seq order. The owner forwards its ``RedisClient``'s events to `handle`.
/// Loop thread only.
public final class RoomFeed {
    private struct Followed {
        var sequencer = RoomSequencer()
        var started = false
        var starting = false
        /// Where delivery starts, when the owner says (else: the room's last seq at the start).
        var after: Int64?
    }

    public let log: RoomEventLog
    private let loop: EventLoop
    private let deliver: (String, RoomEvent) -> Void
    private let skipped: (String, Int64, Int64) -> Void
    private var rooms: [String: Followed] = [:]
    private var roomsByChannel: [[UInt8]: String] = [:]
    /// How long a failed read waits before it is tried again.
    public var retryDelay = TimeSpan.milliseconds(200)
    /// Fills performed (for tests and metrics).
    public private(set) var fillCount = 0

    /// `deliver(room, event)` for each event in order; `skipped(room, after, before)` when
    /// the stream no longer had the events in between.
    public init(log: RoomEventLog, loop: EventLoop, deliver: @escaping (String, RoomEvent) -> Void,
                skipped: @escaping (String, Int64, Int64) -> Void = { _, _, _ in }) {
        self.log = log
        self.loop = loop
        self.deliver = deliver
        self.skipped = skipped
    }

    /// Starts following `room`. Without `after`, delivery starts after the room's last seq when
    /// the subscription is confirmed; with it, every event after `after` is delivered (read from
    /// the stream once the subscription is confirmed, so nothing published meanwhile is missed).
    public func follow(_ room: String, after: Int64? = nil) {
        guard rooms[room] == nil else { return }
        rooms[room] = Followed(after: after)
        let subscription = log.subscription(room: room)
        roomsByChannel[subscription.channel] = room
        log.client.subscribe(subscription)
    }

    /// Forgets every room without unsubscribing (the owner stops the client too): a read still in
    /// flight then delivers nothing when its answer comes, nor does a retry waiting on the loop.
    ///
    /// The reads' completions and retries hold the feed strongly, until the client's answer (it
    /// answers every command exactly once) or the retry's timer: `[weak self]` would give the
    /// feed, which lives as long as its node, a weak-reference side table that only the feed's
    /// reference count points to once the last read is answered (shifted, where LeakSanitizer
    /// cannot follow), reported as leaked at every exit (docs/SANITIZERS.md). So an owner that
    /// goes calls this first, and nothing reaches its `deliver` after.
    public func stop() {
        rooms.removeAll()
        roomsByChannel.removeAll()
    }

    public func unfollow(_ room: String) {
        guard rooms.removeValue(forKey: room) != nil else { return }
        let subscription = log.subscription(room: room)
        roomsByChannel[subscription.channel] = nil
        log.client.unsubscribe(subscription)
    }

    /// The rooms followed.
    public var followedRooms: [String] { Array(rooms.keys) }

    /// True once `room`'s delivery has its starting point (events after it are delivered).
    public func isLive(_ room: String) -> Bool { rooms[room]?.started == true }

    /// The last seq delivered in `room`.
    public func delivered(_ room: String) -> Int64? { rooms[room]?.sequencer.delivered }

    /// Feeds the client's events in; those about other subscriptions are ignored.
    public func handle(_ event: RedisClientEvent) {
        guard case .subscriber(let subscriberEvent) = event else { return }
        switch subscriberEvent {
        case .message(let push):
            guard let room = roomsByChannel[push.subscription.channel], rooms[room] != nil,
                  let roomEvent = RoomEvent(published: push.payload) else { return }
            perform(room, rooms[room]!.sequencer.receive(roomEvent))
        case .subscribed(let subscription, let restored):
            guard let room = roomsByChannel[subscription.channel], let followed = rooms[room] else { return }
            if !followed.started, let after = followed.after {
                rooms[room]!.started = true
                perform(room, rooms[room]!.sequencer.start(lastSeq: after) + rooms[room]!.sequencer.restored())
            } else if !followed.started {
                start(room)
            } else if restored {
                perform(room, rooms[room]!.sequencer.restored())
            }
        case .unsubscribed, .dropped:
            break
        }
    }

    /// Reads the room's last seq after its subscription was confirmed: delivery starts there.
    private func start(_ room: String) {
        guard let followed = rooms[room], !followed.started, !followed.starting else { return }
        rooms[room]!.starting = true
        log.lastSeq(room: room) { [self] result in
            guard rooms[room] != nil else { return }
            rooms[room]!.starting = false
            switch result {
            case .success(let seq):
                rooms[room]!.started = true
                perform(room, rooms[room]!.sequencer.start(lastSeq: seq))
            case .failure:
                later { [self] in start(room) }
            }
        }
    }

    private func perform(_ room: String, _ actions: [RoomSequencer.Action]) {
        for action in actions {
            switch action {
            case .deliver(let event):
                deliver(room, event)
            case .skipped(let after, let before):
                skipped(room, after, before)
            case .fill(let after, let limit):
                fillCount += 1
                log.events(room: room, after: after, limit: limit) { [self] result in
                    guard rooms[room] != nil else { return }
                    switch result {
                    case .success(let events):
                        perform(room, rooms[room]!.sequencer.filled(events, limit: limit))
                    case .failure:
                        rooms[room]!.sequencer.fillFailed()
                        later { [self] in
                            guard rooms[room] != nil else { return }
                            perform(room, rooms[room]!.sequencer.retry())
                        }
                    }
                }
            }
        }
    }

    private func later(_ body: @escaping () -> Void) {
        loop.schedule(at: .now() + retryDelay, body)
    }
}
