import ChatProtocol
@testable import ChatServerCore

/// Several nodes (``ChatServerState`` with a shared room log) and an in-memory stand-in for the
/// log they share: it assigns seqs, keeps events, answers appends and reads, and delivers each
/// event to every node following its room. Nothing happens until the test steps the world, so a
/// test decides the order in which replies and deliveries reach the nodes (Redis answers an
/// append on one connection and publishes on another: either may arrive first).
final class SharedLogWorld {
    /// One node and what its clients received.
    final class Node {
        let name: String
        let state: ChatServerState
        /// Rooms followed, with the last seq handed to the node.
        var follows: [String: Int64] = [:]
        /// Every action the node's core returned that is not a room-log action, in order.
        var actions: [ServerAction] = []

        init(name: String, state: ChatServerState) {
            self.name = name
            self.state = state
        }

        var outbox: Outbox { Outbox(actions) }
        func chat(to client: ClientID) -> [ChatMessage] { outbox.chat(to: client) }
    }

    struct Entry {
        let seq: Int64
        let kind: StoredEventKind
        let node: String
        let origin: ClientID?
        let payload: [UInt8]
    }

    enum Step {
        case reply(node: String, token: UInt64, RoomAppendOutcome)
        case read(node: String, token: UInt64, [Entry]?)
        case deliver(node: String, room: String, Entry)
        case members(node: String, token: UInt64, seq: Int64, [(node: String, record: MemberRecord)]?)

        var isDelivery: Bool { if case .deliver = self { true } else { false } }
    }

    private(set) var nodes: [String: Node] = [:]
    /// Each room's events, in seq order (never trimmed here).
    private(set) var log: [String: [Entry]] = [:]
    /// Each room's members hash: nick key → the record and the node whose client it is.
    private(set) var members: [String: [String: (node: String, record: MemberRecord)]] = [:]
    private var dedupe: [String: Int64] = [:]
    /// What the nodes have yet to hear, in the order they will.
    private(set) var queue: [Step] = []
    /// Deliveries are queued before the append's reply (the publish overtakes the reply).
    var publishBeforeReply = false
    /// Appends fail (nothing stored) while true; `storedButLost` stores them and fails the reply.
    var unavailable = false
    var storedButLost = false
    /// Reads fail (nil) while true.
    var readsFail = false
    var now: Int64 = 1_764_480_000_000
    private var messageCounter: UInt64 = 0

    @discardableResult
    func node(_ name: String, configuration: ChatServerConfiguration = ChatServerConfiguration()) throws -> Node {
        var configuration = configuration
        configuration.nodeName = name
        let node = Node(name: name, state: try ChatServerState(configuration: configuration, history: InMemoryHistoryStore(),
                                                               roomLog: .shared))
        nodes[name] = node
        return node
    }

    // MARK: Clients

    @discardableResult
    func connect(_ client: ClientID, on node: String) -> Outbox {
        take(nodes[node]!.state.connected(client, legacy: false, datagrams: true, now: now), on: node)
    }

    /// A message on a client's stream; returns what the call itself produced.
    @discardableResult
    func send(_ message: ChatMessage, from client: ClientID, on node: String, stream: ChatStreamKind = .chat) -> Outbox {
        take(nodes[node]!.state.received(.message(message), from: client, on: stream, now: now), on: node)
    }

    /// Connects and says hello in `room`, then settles the world.
    func login(_ client: ClientID, nick: String, room: String = "lobby", on node: String, since: Int64? = nil) {
        connect(client, on: node)
        send(.join(nick: nick, peer: Self.peer(client), room: room, since: since), from: client, on: node)
        send(.status("online"), from: client, on: node, stream: .presence)
        settle()
    }

    @discardableResult
    func say(_ text: String, from client: ClientID, on node: String, in room: String = "lobby", id: String? = nil) -> Outbox {
        send(.msg(room: room, text: text, id: id ?? nextMessageID()), from: client, on: node)
    }

    @discardableResult
    func disconnect(_ client: ClientID, on node: String) -> Outbox {
        take(nodes[node]!.state.disconnected(client, reason: "quit", now: now), on: node)
    }

    static func peer(_ number: UInt64) -> String { Harness.peer(number) }

    func nextMessageID() -> String {
        messageCounter += 1
        return Harness.peer(0xBEE0_0000_0000 + messageCounter)
    }

    // MARK: Stepping

    /// Hands the next queued step to its node; false when nothing was queued.
    @discardableResult
    func step(where pick: (Step) -> Bool = { _ in true }) -> Bool {
        guard let index = queue.firstIndex(where: pick) else { return false }
        let step = queue.remove(at: index)
        switch step {
        case .reply(let name, let token, let outcome):
            take(nodes[name]!.state.roomEventAppended(token, outcome, now: now), on: name)
        case .read(let name, let token, let entries):
            let node = nodes[name]!
            take(node.state.roomEventsRead(token, entries.map { $0.map { event($0, room: readRooms[token] ?? "", for: node) } },
                                           now: now), on: name)
        case .members(let name, let token, let seq, let records):
            let node = nodes[name]!
            let seen = records?.map { held in
                var record = held.record
                if held.node != name { record.client = nil }
                return record
            }
            take(node.state.roomMembersRead(token, seq: seq, members: seen, now: now), on: name)
        case .deliver(let name, let room, let entry):
            let node = nodes[name]!
            guard let delivered = node.follows[room], entry.seq > delivered else { break }
            node.follows[room] = entry.seq
            take(node.state.roomEventDelivered(event(entry, room: room, for: node), now: now), on: name)
        }
        return true
    }

    /// Steps until nothing is left (or only what `pick` does not take).
    func settle(where pick: (Step) -> Bool = { _ in true }) {
        var steps = 0
        while step(where: pick) {
            steps += 1
            precondition(steps < 100_000, "the world does not settle")
        }
    }

    private var readRooms: [UInt64: String] = [:]

    private func event(_ entry: Entry, room: String, for node: Node) -> SharedRoomEvent {
        SharedRoomEvent(room: room, seq: entry.seq, kind: entry.kind, origin: entry.node == node.name ? entry.origin : nil,
                        payload: entry.payload)
    }

    /// Actions a test got from the node's core directly (an operator command): as if returned.
    func absorb(_ actions: [ServerAction], on name: String) { take(actions, on: name) }

    /// Keeps a node's non-log actions and carries out its room-log actions.
    @discardableResult
    private func take(_ actions: [ServerAction], on name: String) -> Outbox {
        let node = nodes[name]!
        var kept: [ServerAction] = []
        for action in actions {
            switch action {
            case .appendRoomEvent(let append): perform(append, from: node)
            case .readRoomEvents(let read):
                readRooms[read.token] = read.room
                let events = (log[read.room] ?? []).filter { ($0.seq > (read.after ?? Int64.min)) && $0.seq < (read.before ?? Int64.max) }
                let chosen = read.newest ? Array(events.suffix(read.limit)) : Array(events.prefix(read.limit))
                queue.append(.read(node: name, token: read.token, readsFail ? nil : chosen))
            case .followRoom(let room, let after):
                node.follows[room] = after
                for entry in log[room] ?? [] where entry.seq > after {
                    queue.append(.deliver(node: name, room: room, entry))
                }
            case .unfollowRoom(let room):
                node.follows[room] = nil
            case .readRoomMembers(let token, let room):
                let records = readsFail ? nil : Array((members[room] ?? [:]).values)
                queue.append(.members(node: name, token: token, seq: Int64(log[room]?.count ?? 0), records))
            default:
                kept.append(action)
            }
        }
        node.actions += kept
        return Outbox(kept)
    }

    private func perform(_ append: RoomEventAppend, from node: Node) {
        if unavailable {
            queue.append(.reply(node: node.name, token: append.token, .failed("unavailable")))
            return
        }
        if let key = append.dedupe.map({ "\(append.room)/\($0)" }), let seq = dedupe[key] {
            queue.append(.reply(node: node.name, token: append.token, .stored(seq: seq, duplicate: true)))
            return
        }
        switch append.membership {
        case .add(let record)?: members[append.room, default: [:]][record.key] = (node.name, record)
        case .remove(let keys)?: for key in keys { members[append.room]?[key] = nil }
        case .rename(let fromKey, let record)?:
            members[append.room]?[fromKey] = nil
            members[append.room, default: [:]][record.key] = (node.name, record)
        case nil: break
        }
        let seq = Int64(log[append.room]?.count ?? 0) + 1
        let entry = Entry(seq: seq, kind: append.kind, node: node.name, origin: append.origin,
                          payload: append.beforeSeq + Array(String(seq).utf8) + append.afterSeq)
        log[append.room, default: []].append(entry)
        if let key = append.dedupe.map({ "\(append.room)/\($0)" }) { dedupe[key] = seq }
        let reply = Step.reply(node: node.name, token: append.token,
                               storedButLost ? .failed("connection lost") : .stored(seq: seq, duplicate: false))
        var deliveries: [Step] = []
        for other in nodes.values.sorted(by: { $0.name < $1.name }) where other.follows[append.room] != nil {
            deliveries.append(.deliver(node: other.name, room: append.room, entry))
        }
        queue += publishBeforeReply ? deliveries + [reply] : [reply] + deliveries
    }
}
