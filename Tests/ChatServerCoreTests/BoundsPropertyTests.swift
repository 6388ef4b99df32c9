import ChatProtocol
import SplitMix
import Testing

@testable import ChatServerCore

/// For random sequences of valid and invalid requests from a handful of clients, every structure
/// of the core that holds memory stays within the bound its configuration gives (issue 10).
@Suite struct BoundsPropertyTests {
    /// Small limits, so that a few thousand steps hit every one of them many times.
    static let configuration: ChatServerConfiguration = {
        var configuration = ChatServerConfiguration()
        configuration.historyPerRoom = 5
        configuration.presenceQueueLimit = 4
        configuration.presenceQueueByteLimit = 300
        configuration.maxRoomsPerClient = 3
        configuration.idleRoomLimit = 2
        configuration.defaultReplay = 3
        configuration.maxReplay = 6
        configuration.historyMaxLimit = 10
        configuration.historyDefaultLimit = 4
        return configuration
    }()

    static let receiptLimit = 50

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func memoryStaysBounded(seed: UInt64) throws {
        // The core as one server runs it: its stores behind the local store adapter, settled after each step.
        let harness = try Harness(configuration: Self.configuration, receiptLimit: Self.receiptLimit, seed: seed)
        let state = harness.state
        var random = SplitMix64(seed: seed)
        var now: Int64 = 1_764_480_000_000
        var connected: Set<ClientID> = []
        var nextClient: ClientID = 1
        let rooms = ["lobby", "a", "b", "c", "d", "e", "f", "g", "Bad Room", ""]
        let nicks = ["alice", "bob", "carol", "dave", "eve", "1bad"]

        for step in 0..<4_000 {
            now += Int64(random.next() % 400)
            let roll = random.next() % 100
            let client = connected.isEmpty ? nil : connected.sorted()[Int(random.next() % UInt64(connected.count))]
            func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
            var actions: [ServerAction] = []
            switch (roll, client) {
            case (0..<10, _), (_, nil):
                guard connected.count < 6 else { break }
                let id = nextClient
                nextClient += 1
                connected.insert(id)
                actions = state.connected(id, legacy: false, datagrams: random.next() % 2 == 0, now: now)
            case (10..<15, let client?):
                connected.remove(client)
                actions = state.disconnected(client, reason: "quit", now: now)
            case (15..<35, let client?):
                let since: Int64? = random.next() % 2 == 0 ? nil : Int64(random.next() % 40) - 2
                let join = ChatMessage.join(nick: pick(nicks), peer: Harness.peer(random.next() % 8 + 1), room: pick(rooms), since: since)
                actions = state.received(.message(join), from: client, on: .chat, now: now)
            case (35..<40, let client?):
                actions = state.received(.message(.part(room: pick(rooms))), from: client, on: .chat, now: now)
            case (40..<60, let client?):
                let id = pick(["", "ok-\(random.next() % 80)", String(repeating: "x", count: 70), "bad id", nil as String?].compactMap { $0 })
                let text = String(repeating: pick(["hi ", "\u{1B}[2J", "x"]), count: Int(random.next() % 50) + 1)
                let message = random.next() % 3 == 0 ? ChatMessage.dm(to: pick(nicks), text: text, id: id) : .msg(room: pick(rooms), text: text, id: id)
                actions = state.received(.message(message), from: client, on: .chat, now: now)
            case (60..<68, let client?):
                let request = ChatMessage.history(room: pick(rooms), before: Int64(random.next() % 30), limit: Int(random.next() % 300) - 5)
                actions = state.received(.message(request), from: client, on: .chat, now: now)
            case (68..<74, let client?):
                actions = state.received(.message(.nick(pick(nicks) + pick(["", "2", "!"]))), from: client, on: .chat, now: now)
            case (74..<84, let client?):
                let message = random.next() % 2 == 0 ? ChatMessage.status(pick(["online", "away", "offline", "bogus"]))
                    : .typing(room: pick(rooms), isTyping: random.next() % 2 == 0)
                actions = state.received(.message(message), from: client, on: .presence, now: now)
            case (84..<90, let client?):
                actions = state.presenceStreamOpened(client, now: now)
            case (90..<95, let client?):
                let malformed = ChatStreamEvent.malformed(pick([.badJSON, .badField("room")]), id: pick([nil, "m-1", String(repeating: "\u{7}", count: 100)]))
                actions = state.received(malformed, from: client, on: random.next() % 2 == 0 ? .chat : .presence, now: now)
            case (_, let client?):
                actions = state.receivedDatagram(ChatMessage.typing(room: pick(rooms), isTyping: true).encodedDatagram(), from: client, now: now)
            }
            actions = harness.settle(actions)
            for case .close(let closed, _, _) in actions { connected.remove(closed) }
            try checkBounds(state, harness: harness, connected: connected, step: step, seed: seed)
        }
    }

    private func checkBounds(_ state: ChatServerState, harness: Harness, connected: Set<ClientID>, step: Int, seed: UInt64) throws {
        let limits = state.configuration
        let context = Comment(rawValue: "seed \(seed), step \(step)")
        #expect(Set(state.clients.keys).isSubset(of: connected), context)
        for session in state.clients.values {
            #expect(session.rooms.count <= limits.maxRoomsPerClient, context)
            let backlog = session.pendingPresence
            #expect(backlog.count <= limits.presenceQueueLimit, context)
            #expect(backlog.count <= 1 || backlog.byteCount <= limits.presenceQueueByteLimit, context)
            for room in session.rooms { #expect(state.rooms[room]?.members[session.id] === session, context) }
        }
        for room in state.rooms.values {
            #expect(!room.members.isEmpty, context)
            #expect(room.members.allSatisfy { id, member in state.clients[id] === member && member.isMember(of: room.name) }, context)
        }
        #expect(state.idleRooms.count <= limits.idleRoomLimit, context)
        let rooms = ["lobby", "a", "b", "c", "d", "e", "f", "g"]
        let kept = try rooms.filter { try !harness.storedEvents(inRoom: $0).isEmpty }
        #expect(kept.count <= state.rooms.count + limits.idleRoomLimit, context)
        for room in rooms {
            #expect(try harness.storedEvents(inRoom: room).count <= 2 * limits.historyPerRoom, context)
        }
        #expect((harness.localStore?.adapter.receiptCount ?? 0) <= Self.receiptLimit, context)
        #expect(state.activeChatStreams.count <= state.clients.count, context)
        #expect(state.clientsByNickKey.count <= state.clients.count, context)
    }
}
