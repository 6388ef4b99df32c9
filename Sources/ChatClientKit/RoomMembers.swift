import ChatProtocol

/// Who is in each room the client is in, exactly as the server's roster says at every moment.
///
/// The server sends the `roster` of a room on the presence stream when the client joins it, at
/// the moment of the client's own live `joined` on the chat stream. The two streams are not
/// ordered with each other, so the roster can arrive before that `joined`, in the middle of the
/// replay before it, or after live events that followed it. The rule that gives the server's list
/// whatever the order: the roster describes the room at the client's own `joined`; live `joined`,
/// `left` and `nick` events after that `joined` change it; replayed events (the past) never do.
/// Live events that arrive after the own `joined` and before its roster are applied to the
/// roster when it comes. Nicks compare case-insensitively, as the server makes them unique.
public struct RoomMembers: Sendable, Equatable {
    struct Room: Sendable, Equatable {
        var members: [String] = []
        /// Live events since the own `joined`, while its roster has not come yet.
        var awaitingRoster: [ChatMessage]?
        /// A roster that came before the own `joined` it belongs to.
        var earlyRoster: [String]?
        /// The events awaiting the roster overflowed: the roster, when it comes, is older than
        /// the list the events made, and is not applied.
        var skipsRoster = false
    }

    private(set) var rooms: [String: Room] = [:]
    /// Live events kept for a roster that has not come, at most: a server that sends none (a
    /// re-join of a room the client is in may get none) must not grow the list forever. The
    /// events are applied to the shown list as they come anyway.
    static let bufferLimit = 1_000

    public init() {}

    /// The members of a room, in the order the roster gave them and then in order of arrival.
    public func members(of room: String) -> [String] { rooms[room]?.members ?? [] }

    /// Applies one message from the server; returns the rooms whose member list changed.
    /// `ownNick` is the client's nick before this message.
    @discardableResult
    public mutating func apply(_ message: ChatMessage, ownNick: String) -> [String] {
        guard message.replay != true else { return [] }
        let room = message.roomOrDefault
        switch message.messageType {
        case .roster:
            return receivedRoster(message.members ?? [], room: room)
        case .joined where Self.same(message.sender, ownNick):
            var state = rooms[room] ?? Room()
            state.skipsRoster = false
            if let early = state.earlyRoster {
                state.members = Self.unique(early)
                state.earlyRoster = nil
                state.awaitingRoster = nil
            } else {
                state.awaitingRoster = []
                Self.change(&state.members, by: message)
            }
            return update(room, to: state)
        case .left where Self.same(message.sender, ownNick):
            guard rooms.removeValue(forKey: room) != nil else { return [] }
            return [room]
        case .joined, .left, .nick:
            // A nick change outside any room (no `room`) changes no list.
            guard message.messageType != .nick || message.room != nil, var state = rooms[room] else { return [] }
            state.awaitingRoster?.append(message)
            if (state.awaitingRoster?.count ?? 0) > Self.bufferLimit {
                state.awaitingRoster = nil
                state.skipsRoster = true
            }
            Self.change(&state.members, by: message)
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

    /// Forgets a room (the client left it).
    public mutating func forget(_ room: String) {
        rooms[room] = nil
    }

    private mutating func receivedRoster(_ roster: [String], room: String) -> [String] {
        var state = rooms[room] ?? Room()
        if state.skipsRoster {
            state.skipsRoster = false
            rooms[room] = state
            return []
        }
        var members = Self.unique(roster)
        if let buffered = state.awaitingRoster {
            for event in buffered { Self.change(&members, by: event) }
            state.awaitingRoster = nil
        } else {
            state.earlyRoster = members
        }
        state.members = members
        return update(room, to: state)
    }

    private mutating func update(_ room: String, to state: Room) -> [String] {
        let changed = rooms[room]?.members != state.members
        rooms[room] = state
        return changed ? [room] : []
    }

    /// Applies a live `joined`, `left` or `nick` to a list.
    static func change(_ members: inout [String], by event: ChatMessage) {
        let index = members.firstIndex { same($0, event.sender) }
        switch event.messageType {
        case .joined:
            if index == nil { members.append(event.sender) }
        case .left:
            if let index { members.remove(at: index) }
        case .nick:
            let newNick = event.text
            if let existing = members.firstIndex(where: { same($0, newNick) }), existing != index {
                // Listed already under the new nick: drop the old entry.
                if let index { members.remove(at: index) }
            } else if let index {
                members[index] = newNick
            } else {
                members.append(newNick)
            }
        default:
            break
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
