import ChatProtocol
import QuicEngine

/// Everything a client has to send on its chat and presence streams, in the order the person
/// asked for it: paced under the server's flood limit (``FloodPacer``), kept until the server
/// answers, put back in line when the server refuses it with `rate-limited` or the connection is
/// lost, so that no line is ever dropped. Pure: time is passed in, the caller writes what
/// ``takeDue(now:)`` returns.
///
/// Every entry carries an `id` (a UUID): a `msg` or `dm` needs one anyway, and on the other
/// requests it lets an `error` (which echoes the id) name the request it refuses. Answers are
/// matched as PROTOCOL.md section 3 gives them: `ack` or `error` by id, a `join` by the client's
/// own live `joined` in that room, a `part` by its own `left`, a `nick` by the `nick` event naming
/// the new nick, a `history` by `history-end`. A `status` or a `read` gets no answer: it counts as done once
/// written (it is still matched if `rate-limited` comes back for it).
public struct Outbox: Sendable {
    public enum Channel: Sendable, Equatable { case chat, presence }

    public struct Entry: Sendable, Equatable {
        /// Position in the person's order; entries go out and come back in this order.
        public let order: Int64
        public let message: ChatMessage
        public let channel: Channel
        public internal(set) var sentAt: MonotonicTime?
        /// Not sent again before this (the server could not take it: ``unavailable(id:now:)``).
        public internal(set) var notBefore: MonotonicTime?
        /// Times the server answered `unavailable`.
        public internal(set) var unavailableCount = 0

        public var id: String { message.id ?? "" }
        /// Whether the server answers this request (everything but `status`).
        public var expectsAnswer: Bool { channel == .chat && message.type != MessageType.read.rawValue }
        /// A `msg` or `dm`: kept until acknowledged, and what "pending" counts.
        public var isMessage: Bool { message.type == MessageType.msg.rawValue || message.type == MessageType.dm.rawValue }
    }

    /// Requests sent and not answered at most, so that a server with lower limits than the
    /// client's estimate refuses a few, not a burst's worth (10 refusals within 10 s close the
    /// connection with FLOODING).
    public static let window = 5
    /// A request unanswered this long no longer holds a place in the window (it stays in flight,
    /// to be resent after a reconnect).
    public static let answerTimeout = TimeSpan.seconds(30)
    /// Requests waiting at most (at the default pace, about three and a half minutes of sending);
    /// beyond it ``enqueue(_:on:first:)`` refuses, so a runaway paste or script cannot grow the
    /// client without bound.
    public static let capacity = 1_000
    /// Fire-and-forget entries remembered to match a late `rate-limited`.
    static let recentLimit = 32

    public private(set) var waiting: [Entry] = []
    public private(set) var inFlight: [Entry] = []
    private var recent: [Entry] = []
    public private(set) var pacer: FloodPacer
    private var nextOrder: Int64 = 0
    private var firstOrder: Int64 = 0

    public init(now: MonotonicTime) {
        pacer = FloodPacer(now: now)
    }

    /// Nothing waits and nothing is unanswered.
    public var isEmpty: Bool { waiting.isEmpty && inFlight.isEmpty }

    /// `msg` and `dm` entries not yet acknowledged, waiting or in flight.
    public var pendingMessages: [ChatMessage] {
        (inFlight + waiting).sorted { $0.order < $1.order }.filter(\.isMessage).map(\.message)
    }

    /// Whether ``enqueue(_:on:first:)`` would take another request at the end of the line.
    public var isFull: Bool { waiting.count >= Self.capacity }

    /// Adds a request at the end of the line (or, with `first`, before everything that waits: the
    /// re-joins after a reconnect, which are never refused). A message without an `id` is given
    /// one. Nil when the line is full.
    @discardableResult
    public mutating func enqueue(_ message: ChatMessage, on channel: Channel = .chat, first: Bool = false) -> Entry? {
        guard first || !isFull else { return nil }
        var message = message
        if message.id == nil { message.id = ChatSession.randomPeerID() }
        let order: Int64
        if first {
            firstOrder -= 1
            order = firstOrder
        } else {
            nextOrder += 1
            order = nextOrder
        }
        let entry = Entry(order: order, message: message, channel: channel)
        insertWaiting(entry)
        return entry
    }

    /// Adds several requests before everything that waits, keeping their order.
    public mutating func enqueueFirst(_ messages: [ChatMessage], on channel: Channel = .chat) {
        for message in messages.reversed() { enqueue(message, on: channel, first: true) }
    }

    /// The entries to write now, in order, as far as the pacer and the window allow. Call again
    /// at ``nextDeadline(now:)``.
    public mutating func takeDue(now: MonotonicTime) -> [Entry] {
        var due: [Entry] = []
        while var entry = waiting.first {
            if let notBefore = entry.notBefore, now < notBefore { break }
            if entry.expectsAnswer && occupiedWindow(now: now) >= Self.window { break }
            guard pacer.take(now: now) else { break }
            waiting.removeFirst()
            entry.sentAt = now
            if entry.expectsAnswer {
                inFlight.append(entry)
            } else {
                recent.append(entry)
                if recent.count > Self.recentLimit { recent.removeFirst() }
            }
            due.append(entry)
        }
        return due
    }

    /// When to call ``takeDue(now:)`` again: nil when nothing waits or only an answer can free
    /// the window.
    public func nextDeadline(now: MonotonicTime) -> MonotonicTime? {
        guard let first = waiting.first else { return nil }
        if let notBefore = first.notBefore, now < notBefore { return notBefore }
        if first.expectsAnswer && occupiedWindow(now: now) >= Self.window {
            // An answer frees the window; so does the oldest request's timeout.
            return inFlight.compactMap(\.sentAt).min().map { $0 + Self.answerTimeout }
        }
        return pacer.nextToken(now: now)
    }

    /// The server answered the request with this id (`ack`, or an `error` other than
    /// `rate-limited`). Returns the entry, nil for an id this outbox does not hold.
    @discardableResult
    public mutating func answered(id: String) -> Entry? {
        if let index = inFlight.firstIndex(where: { $0.id == id }) {
            pacer.accepted()
            return inFlight.remove(at: index)
        }
        // An answer can also find a request that was put back after a lost connection.
        if let index = waiting.firstIndex(where: { $0.id == id }) { return waiting.remove(at: index) }
        return nil
    }

    /// The server answered the oldest request in flight that `matches` (a `joined`, `left`,
    /// `nick` or `history-end`, which carry no id).
    @discardableResult
    public mutating func answered(where matches: (ChatMessage) -> Bool) -> Entry? {
        guard let index = inFlight.firstIndex(where: { matches($0.message) }) else { return nil }
        pacer.accepted()
        return inFlight.remove(at: index)
    }

    /// The server refused the request with this id for flooding: it goes back in line, in its
    /// place, and the pacer learns. False for an id this outbox never sent.
    public mutating func refused(id: String, now: MonotonicTime) -> Bool {
        let entry: Entry
        if let index = inFlight.firstIndex(where: { $0.id == id }) {
            entry = inFlight.remove(at: index)
        } else if let index = recent.firstIndex(where: { $0.id == id }) {
            entry = recent.remove(at: index)
        } else {
            return false
        }
        pacer.refused(now: now)
        var again = entry
        again.sentAt = nil
        insertWaiting(again)
        return true
    }

    /// The server could not take the request with this id now (`error unavailable`: a node of
    /// several that cannot reach its store, PROTOCOL.md section 10): it goes back in line, in its
    /// place, and is sent again (with the same id: a `msg` stored meanwhile is not stored twice)
    /// after 1 s, doubling to 16 s; everything after it waits behind it, keeping the order. After
    /// ``unavailableAttempts`` answers it is given up: the entry is returned (nil while it is kept,
    /// or for an id this outbox does not hold).
    public mutating func unavailable(id: String, now: MonotonicTime) -> (kept: Bool, entry: Entry?) {
        guard let index = inFlight.firstIndex(where: { $0.id == id }) else { return (false, nil) }
        var entry = inFlight.remove(at: index)
        entry.unavailableCount += 1
        guard entry.unavailableCount < Self.unavailableAttempts else { return (false, entry) }
        entry.sentAt = nil
        entry.notBefore = now + .milliseconds(1000 << min(entry.unavailableCount - 1, 4))
        insertWaiting(entry)
        return (true, entry)
    }

    /// `unavailable` answers after which a request is given up (about two minutes of retries).
    public static let unavailableAttempts = 10

    /// The connection is gone: whatever was unanswered goes back in line to be sent again on the
    /// next one (a resent `msg` or `dm` keeps its id, so the server delivers it once).
    /// `keeping` decides which unanswered requests are still wanted.
    public mutating func connectionLost(keeping isWanted: (ChatMessage) -> Bool = { _ in true }) {
        for var entry in inFlight where isWanted(entry.message) {
            entry.sentAt = nil
            insertWaiting(entry)
        }
        inFlight.removeAll()
        recent.removeAll()
    }

    /// A new connection said hello after `spent` messages of its own.
    public mutating func connected(now: MonotonicTime, spent: Int) {
        pacer.restart(now: now, spent: spent)
    }

    /// Drops waiting entries (a request the person no longer wants).
    public mutating func removeWaiting(where matches: (ChatMessage) -> Bool) {
        waiting.removeAll { matches($0.message) }
    }

    private func occupiedWindow(now: MonotonicTime) -> Int {
        inFlight.filter { entry in entry.sentAt.map { now - $0 < Self.answerTimeout } ?? false }.count
    }

    private mutating func insertWaiting(_ entry: Entry) {
        let index = waiting.firstIndex { $0.order > entry.order } ?? waiting.endIndex
        waiting.insert(entry, at: index)
    }
}
