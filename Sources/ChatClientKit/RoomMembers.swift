import ChatProtocol

/// Who is in each room the client is in, exactly as the server's roster says at every moment, and
/// what the roster says besides (PROTOCOL.md section 8): the topic, the modes, the operators present
/// and the members logged in to an account.
///
/// The server sends the `roster` of a room on the presence stream when the client joins it, at
/// the moment of the client's own live `joined` on the chat stream. The two streams are not
/// ordered with each other, so the roster can arrive before that `joined`, in the middle of the
/// replay before it, or after live events that followed it. The rule that gives the server's list
/// whatever the order: the roster describes the room at the client's own `joined`; live `joined`,
/// `left`, `nick`, `kicked`, `banned`, `topic`, `mode`, `op` and `deop` events after that `joined`
/// change it; replayed events (the past) never do. Live events that arrive after the own `joined`
/// and before its roster are applied to the roster when it comes. Nicks compare
/// case-insensitively, as the server makes them unique.
public struct RoomMembers: Sendable, Equatable {
    /// One room as the roster and the events since describe it.
    public struct Info: Sendable, Equatable {
        public internal(set) var members: [String] = []
        /// Nicks of the operators present (owner included).
        public internal(set) var operators: [String] = []
        /// Nicks of the members logged in to an account.
        public internal(set) var identified: [String] = []
        public internal(set) var topic: String?
        /// `invite`, `registered`.
        public internal(set) var modes: [String] = []

        public func isOperator(_ nick: String) -> Bool { operators.contains { RoomMembers.same($0, nick) } }
        public func isIdentified(_ nick: String) -> Bool { identified.contains { RoomMembers.same($0, nick) } }
    }

    struct Room: Sendable, Equatable {
        var info = Info()
        /// Live events since the own `joined`, while its roster has not come yet.
        var awaitingRoster: [ChatMessage]?
        /// A roster that came before the own `joined` it belongs to.
        var earlyRoster: ChatMessage?
        /// The events awaiting the roster overflowed: the roster, when it comes, is older than
        /// the list the events made, and is not applied.
        var skipsRoster = false
        /// A roster has been applied.
        var hasRoster = false
    }

    private(set) var rooms: [String: Room] = [:]
    /// Live events kept for a roster that has not come, at most: a server that sends none (a
    /// re-join of a room the client is in may get none) must not grow the list forever. The
    /// events are applied to the shown list as they come anyway.
    static let bufferLimit = 1_000

    public init() {}

    /// Whether the server's roster of the room has come (the member list is the server's).
    public func hasRoster(of room: String) -> Bool { rooms[room]?.hasRoster ?? false }

    /// The members of a room, in the order the roster gave them and then in order of arrival.
    public func members(of room: String) -> [String] { rooms[room]?.info.members ?? [] }

    /// Everything known of a room: members, operators, who is logged in, topic, modes.
    public func info(of room: String) -> Info { rooms[room]?.info ?? Info() }

    /// Applies one message from the server; returns the rooms whose member list or info changed.
    /// `ownNick` is the client's nick before this message.
    @discardableResult
    public mutating func apply(_ message: ChatMessage, ownNick: String) -> [String] {
        guard message.replay != true else { return [] }
        let room = message.roomOrDefault
        switch message.messageType {
        case .roster:
            return receivedRoster(message, room: room)
        case .joined where Self.same(message.sender, ownNick):
            var state = rooms[room] ?? Room()
            state.skipsRoster = false
            if let early = state.earlyRoster {
                state.info = Self.info(from: early)
                state.hasRoster = true
                state.earlyRoster = nil
                state.awaitingRoster = nil
            } else {
                state.awaitingRoster = []
                Self.change(&state.info, by: message)
            }
            return update(room, to: state)
        case .left where Self.same(message.sender, ownNick):
            return forgetting(room)
        case .kicked where Self.removesOwnNick(message, ownNick), .banned where Self.removesOwnNick(message, ownNick):
            return forgetting(room)
        case .joined, .left, .nick, .kicked, .banned, .topic, .mode, .op, .deop, .msg:
            // A nick change outside any room (no `room`) changes no list; a `msg` only tells who
            // is logged in.
            guard message.room != nil, var state = rooms[room] else { return [] }
            if message.messageType == .msg, message.account == nil || state.info.isIdentified(message.sender) { return [] }
            state.awaitingRoster?.append(message)
            if (state.awaitingRoster?.count ?? 0) > Self.bufferLimit {
                state.awaitingRoster = nil
                state.skipsRoster = true
            }
            Self.change(&state.info, by: message)
            return update(room, to: state)
        default:
            return []
        }
    }

    /// The connection is gone: the next one's rosters and own `joined` events start afresh. The
    /// lists stay as they were until then.
    public mutating func connectionLost() {
        for room in rooms.keys {
            rooms[room]?.awaitingRoster = nil
            rooms[room]?.earlyRoster = nil
            rooms[room]?.skipsRoster = false
        }
    }

    /// The client's own account changed (`account`: registered, logged in, or none): its `+` in
    /// every room it is in follows at once, not at the next roster (issue 24, defect 11). Returns
    /// the rooms whose info changed.
    public mutating func setIdentified(_ nick: String, _ identified: Bool) -> [String] {
        var changed: [String] = []
        for room in rooms.keys.sorted() {
            guard var state = rooms[room], state.info.members.contains(where: { Self.same($0, nick) }) else { continue }
            let before = state.info
            if identified {
                Self.add(nick, to: &state.info.identified)
            } else {
                state.info.identified.removeAll { Self.same($0, nick) }
            }
            rooms[room] = state
            if state.info != before { changed.append(room) }
        }
        return changed
    }

    /// Forgets a room (the client left it).
    public mutating func forget(_ room: String) {
        rooms[room] = nil
    }

    private mutating func forgetting(_ room: String) -> [String] {
        guard rooms.removeValue(forKey: room) != nil else { return [] }
        return [room]
    }

    private mutating func receivedRoster(_ roster: ChatMessage, room: String) -> [String] {
        var state = rooms[room] ?? Room()
        if state.skipsRoster {
            state.skipsRoster = false
            rooms[room] = state
            return []
        }
        var info = Self.info(from: roster)
        state.hasRoster = true
        if let buffered = state.awaitingRoster {
            for event in buffered { Self.change(&info, by: event) }
            state.awaitingRoster = nil
        } else {
            state.earlyRoster = roster
        }
        state.info = info
        return update(room, to: state)
    }

    private mutating func update(_ room: String, to state: Room) -> [String] {
        // The first roster is news even when it changes nothing: the list is now the server's.
        let changed = rooms[room]?.info != state.info || (state.hasRoster && rooms[room]?.hasRoster != true)
        rooms[room] = state
        return changed ? [room] : []
    }

    /// A room's `kicked` or `banned` naming us: we are out of the room.
    public static func removesOwnNick(_ message: ChatMessage, _ ownNick: String) -> Bool {
        message.room != nil && removedNicks(by: message).contains { same($0, ownNick) }
    }

    /// Who a `kicked` or `banned` takes out of its room: the kicked nick; for a ban, the nicks it
    /// lists in `members` (every connection of a banned account), else the one it names.
    public static func removedNicks(by message: ChatMessage) -> [String] {
        if message.messageType == .banned, let members = message.members { return members }
        return message.to.map { [$0] } ?? []
    }

    static func info(from roster: ChatMessage) -> Info {
        Info(members: unique(roster.members ?? []), operators: unique(roster.ops ?? []), identified: unique(roster.identified ?? []),
             topic: roster.topic.flatMap { $0.isEmpty ? nil : $0 }, modes: roster.modes ?? [])
    }

    /// Applies a live event to a room's info.
    static func change(_ info: inout Info, by event: ChatMessage) {
        switch event.messageType {
        case .joined:
            add(event.sender, to: &info.members)
            if event.account != nil { add(event.sender, to: &info.identified) }
        case .left:
            remove(event.sender, from: &info)
        case .kicked, .banned:
            for nick in removedNicks(by: event) { remove(nick, from: &info) }
        case .nick:
            rename(event.sender, to: event.text, in: &info.members, addingMissing: true)
            rename(event.sender, to: event.text, in: &info.operators, addingMissing: false)
            rename(event.sender, to: event.text, in: &info.identified, addingMissing: false)
            if event.account != nil { add(event.text, to: &info.identified) }
        case .msg:
            if event.account != nil { add(event.sender, to: &info.identified) }
        case .topic:
            info.topic = event.text.isEmpty ? nil : event.text
        case .mode:
            guard let change = event.mode.flatMap(RoomModeChange.init) else { return }
            info.modes.removeAll { $0 == change.mode.rawValue }
            if change.isOn { info.modes = (info.modes + [change.mode.rawValue]).sorted() }
        default:
            break
        }
        // `op`, `deop`, and the `joined` or `nick` of an operator, carry the operators present.
        if let operators = event.ops { info.operators = unique(operators) }
    }

    private static func add(_ nick: String, to list: inout [String]) {
        if !list.contains(where: { same($0, nick) }) { list.append(nick) }
    }

    private static func remove(_ nick: String, from info: inout Info) {
        info.members.removeAll { same($0, nick) }
        info.operators.removeAll { same($0, nick) }
        info.identified.removeAll { same($0, nick) }
    }

    private static func rename(_ old: String, to new: String, in list: inout [String], addingMissing: Bool) {
        let index = list.firstIndex { same($0, old) }
        if let existing = list.firstIndex(where: { same($0, new) }), existing != index {
            // Listed already under the new nick: drop the old entry.
            if let index { list.remove(at: index) }
        } else if let index {
            list[index] = new
        } else if addingMissing {
            list.append(new)
        }
    }

    static func same(_ one: String, _ other: String) -> Bool {
        ChatValidation.nickKey(one) == ChatValidation.nickKey(other)
    }

    static func unique(_ nicks: [String]) -> [String] {
        var seen = Set<String>()
        return nicks.filter { seen.insert(ChatValidation.nickKey($0)).inserted }
    }
}
