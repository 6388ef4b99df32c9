import TestSupport
import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing

/// End to end, the rows of PROTOCOL.md's message tables beyond hello, msg and ack: dm, nick,
/// part, history, status, roster and nick collisions, against the real chat-server process.
@Suite("chat-server message tables", .serialized)
struct MessageTableTests {
    /// A dm reaches only its recipient (no shared room, nick in any case) with sender, to, text, id, ts; the sender gets an ack without room or seq.
    @Test func directMessageDeliveredAndAcked() async throws {
        let result = try await scenario { world, _ -> (ok: Bool, alice: [ChatMessage], bob: [ChatMessage], carol: [ChatMessage]) in
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let bob = try world.connect("bob", room: "red")
            var ok = world.run { world.joined(alice) && world.joined(carol) && world.joined(bob, room: "red") }
            alice.send(.dm(to: "BOB", text: "psst", id: "D-1"))
            ok = ok && world.run { world.has(alice, type: "ack") && world.has(bob, type: "dm") }
            world.settle(seconds: 0.2)
            return (ok, world.messages(alice), world.messages(bob), world.messages(carol))
        }
        #expect(result.ok)
        let acks = result.alice.filter { $0.type == "ack" }
        #expect(acks.count == 1)
        let ack = try #require(acks.first)
        #expect(ack.id == "D-1" && ack.ts != nil && ack.seq == nil && ack.room == nil)
        let dms = result.bob.filter { $0.type == "dm" }
        #expect(dms.count == 1)
        let dm = try #require(dms.first)
        #expect(dm.sender == "alice" && dm.to == "bob" && dm.text == "psst" && dm.id == "D-1" && dm.ts == ack.ts)
        #expect(dm.seq == nil && dm.replay == nil)
        #expect(!result.alice.contains { $0.type == "dm" })
        #expect(!result.carol.contains { $0.text == "psst" })
    }

    /// A dm to a nick that has disconnected gets `no-such-user` with its id and reaches nobody; the next dm is delivered.
    @Test func directMessageToDepartedUserIsNoSuchUser() async throws {
        let result = try await scenario { world, _ -> (ok: Bool, errors: [ChatMessage], acks: [String?], bob: [ChatMessage]) in
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let carol = try world.connect("carol")
            var ok = world.run { world.joined(alice) && world.joined(bob) && world.joined(carol) }
            carol.quit()
            ok = ok && world.run { world.has(alice, type: "left") { $0.sender == "carol" } }
            alice.send(.dm(to: "carol", text: "are you there?", id: "D-2"))
            alice.send(.dm(to: "bob", text: "carol left", id: "D-3"))
            ok = ok && world.run { world.has(alice, type: "error") && world.has(alice, type: "ack") && world.has(bob, type: "dm") }
            return (ok, world.messages(alice, type: "error"), world.messages(alice, type: "ack").map(\.id), world.messages(bob, type: "dm"))
        }
        #expect(result.ok)
        #expect(result.errors.count == 1)
        #expect(result.errors.first?.code == "no-such-user" && result.errors.first?.id == "D-2")
        #expect(result.acks == ["D-3"])
        #expect(result.bob.map(\.text) == ["carol left"])
    }

    /// `nick` sends one event per room (sender old, text new, seq) to that room's members and the renamer only; the new nick sticks, the old is free.
    @Test func nickChangeAnnouncedInEveryRoom() async throws {
        struct Result: Sendable {
            var ok = false
            var alice: [ChatMessage] = []
            var bob: [ChatMessage] = []
            var carol: [ChatMessage] = []
            var dave: [ChatMessage] = []
            var relayedSender: String?
            var newcomers: [String?] = []
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let carol = try world.connect("carol", room: "red")
            let dave = try world.connect("dave", room: "blue")
            result.ok = world.run { world.joined(alice) && world.joined(bob) && world.joined(carol, room: "red") && world.joined(dave, room: "blue") }
            alice.send(.join(room: "red"))
            result.ok = result.ok && world.run { world.joined(alice, room: "red") && world.has(carol, type: "joined") { $0.sender == "alice" } }
            alice.send(.nick("alicia"))
            result.ok = result.ok && world.run {
                world.messages(alice, type: "nick").count == 2 && world.has(bob, type: "nick") && world.has(carol, type: "nick")
            }
            alice.send(.msg(room: "lobby", text: "new name", id: "N-1"))
            result.ok = result.ok && world.run { world.has(bob, type: "msg") }
            result.relayedSender = world.messages(bob, type: "msg").first?.sender
            let again = try world.connect("alice", room: "green")
            result.ok = result.ok && world.run { world.has(again, type: "welcome") }
            let clash = try world.connect("ALICIA", room: "green")
            result.ok = result.ok && world.run { world.has(clash, type: "welcome") }
            result.newcomers = [again.assignedNick, clash.assignedNick]
            world.settle(seconds: 0.2)
            result.alice = world.messages(alice, type: "nick")
            result.bob = world.messages(bob, type: "nick")
            result.carol = world.messages(carol, type: "nick")
            result.dave = world.messages(dave, type: "nick")
            return result
        }
        #expect(result.ok)
        #expect(Set(result.alice.compactMap(\.room)) == ["lobby", "red"])
        for event in result.alice + result.bob + result.carol {
            #expect(event.sender == "alice" && event.text == "alicia" && event.seq != nil && event.ts != nil && event.replay == nil)
        }
        #expect(result.bob.count == 1 && result.bob.first?.room == "lobby")
        #expect(result.carol.count == 1 && result.carol.first?.room == "red")
        #expect(result.bob.first?.seq == result.alice.first { $0.room == "lobby" }?.seq)
        #expect(result.carol.first?.seq == result.alice.first { $0.room == "red" }?.seq)
        #expect(result.dave.isEmpty)
        #expect(result.relayedSender == "alicia")
        #expect(result.newcomers == ["alice", "ALICIA_2"])
    }

    /// `part` sends `left` (text `part`) to the members and the leaver; then a msg to that room is `not-joined` and its traffic stops.
    @Test func partAnnouncesLeftAndStopsDelivery() async throws {
        struct Result: Sendable {
            var ok = false
            var aliceLeft: [ChatMessage] = []
            var bobLeft: [ChatMessage] = []
            var aliceErrors: [ChatMessage] = []
            var aliceAcks: [String?] = []
            var aliceMessages: [ChatMessage] = []
            var bobMessages: [ChatMessage] = []
            var aliceClose: UInt64?
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            result.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "joined") { $0.sender == "bob" } }
            alice.send(.join(room: "red"))
            alice.send(.part(room: "lobby"))
            result.ok = result.ok && world.run {
                world.has(alice, type: "left") { $0.room == "lobby" } && world.has(bob, type: "left") { $0.sender == "alice" }
            }
            alice.send(.msg(room: "lobby", text: "still there?", id: "P-1"))
            bob.send(.msg(room: "lobby", text: "she left", id: "P-2"))
            alice.send(.msg(room: "red", text: "over here", id: "P-3"))
            result.ok = result.ok && world.run {
                world.has(alice, type: "error") && world.has(alice, type: "ack") && world.has(bob, type: "ack")
            }
            world.settle(seconds: 0.2)
            result.aliceLeft = world.messages(alice, type: "left")
            result.bobLeft = world.messages(bob, type: "left")
            result.aliceErrors = world.messages(alice, type: "error")
            result.aliceAcks = world.messages(alice, type: "ack").map(\.id)
            result.aliceMessages = world.messages(alice, type: "msg")
            result.bobMessages = world.messages(bob, type: "msg")
            result.aliceClose = world.closeCode(alice)
            return result
        }
        #expect(result.ok)
        #expect(result.aliceLeft.count == 1 && result.bobLeft.count == 1)
        let left = try #require(result.bobLeft.first)
        #expect(left.sender == "alice" && left.room == "lobby" && left.text == "part" && left.seq != nil && left.ts != nil)
        #expect(result.aliceLeft.first?.seq == left.seq)
        #expect(result.aliceErrors.map(\.code) == ["not-joined"] && result.aliceErrors.first?.id == "P-1")
        #expect(result.aliceAcks == ["P-3"])
        #expect(result.aliceMessages.isEmpty)
        #expect(result.bobMessages.isEmpty)
        #expect(result.aliceClose == nil)
    }

    /// `history` pages with before/limit (default 50, clamped at 200), oldest first, `replay: true`, then `history-end`; memory and `--db`.
    @Test(arguments: [false, true])
    func historyPagesWithBeforeAndLimit(onDisk: Bool) async throws {
        struct Result: Sendable {
            var ok = false
            var textBySeq: [Int64: String] = [:]
            var pages: [[ChatMessage]] = []
            var ends: [ChatMessage] = []
        }
        let database = temporaryDatabasePath()
        defer { removeDatabase(database) }
        let flags = ["--flood-burst", "1000", "--flood-rate", "1000"] + (onDisk ? ["--db", database] : [])
        let result = try await scenario(server: flags) { world, _ -> Result in
            var result = Result()
            let alice = try world.connect("alice")
            result.ok = world.run { world.joined(alice) }
            for index in 1...250 { alice.send(.msg(room: "lobby", text: "m\(index)", id: "H-\(index)")) }
            result.ok = result.ok && world.run { world.messages(alice, type: "ack").count == 250 }
            for ack in world.messages(alice, type: "ack") {
                if let seq = ack.seq, let id = ack.id { result.textBySeq[seq] = "m" + id.dropFirst(2) }
            }
            let last = world.messages(alice, type: "ack").last?.seq ?? 0
            alice.send(.history(room: "lobby"))
            alice.send(.history(room: "lobby", before: last - 99, limit: 10))
            alice.send(.history(room: "LOBBY", limit: 500))
            alice.send(.history(room: "lobby", before: 3, limit: 10))
            result.ok = result.ok && world.run { world.messages(alice, type: "history-end").count == 4 }
            var page: [ChatMessage] = []
            for message in world.messages(alice, channel: .chat) {
                if message.type == "history-end" {
                    result.pages.append(page)
                    result.ends.append(message)
                    page = []
                } else if message.replay == true {
                    page.append(message)
                }
            }
            return result
        }
        #expect(result.ok)
        let last = try #require(result.textBySeq.keys.max())
        #expect(result.textBySeq.count == 250 && last == 251)
        try #require(result.pages.count == 4)
        #expect(result.pages[0].compactMap(\.seq) == Array((last - 49)...last))
        #expect(result.pages[1].compactMap(\.seq) == Array((last - 109)...(last - 100)))
        #expect(result.pages[2].compactMap(\.seq) == Array((last - 199)...last))
        #expect(result.pages[3].compactMap(\.seq) == [1, 2])
        #expect(result.pages[3].first?.type == "joined" && result.pages[3].first?.sender == "alice")
        for message in result.pages.joined() where message.type == "msg" {
            #expect(message.text == result.textBySeq[message.seq ?? 0] && message.sender == "alice" && message.room == "lobby")
            #expect(message.ts != nil && message.id != nil)
        }
        #expect(result.ends.allSatisfy { $0.room == "lobby" })
    }

    /// `status` away/online goes on the presence stream to room mates only, not back to the user; a later joiner learns `away`.
    @Test func statusBroadcastToRoomMates() async throws {
        struct Result: Sendable {
            var ok = false
            var bob: [ChatMessage] = []
            var dave: [ChatMessage] = []
            var alice: [ChatMessage] = []
            var carol: [ChatMessage] = []
        }
        let result = try await scenario { world, _ -> Result in
            var result = Result()
            let alice = try world.connectAndJoin("alice")
            let bob = try world.connectAndJoin("bob")
            let carol = try world.connectAndJoin("carol", room: "red")
            result.ok = world.run {
                world.joined(alice) && world.joined(bob) && world.joined(carol, room: "red")
                    && world.has(alice, type: "status") { $0.sender == "bob" }
            }
            // Whatever the joins caused is not part of what is checked.
            let baseline = (bob: world.messages(bob).count, carol: world.messages(carol).count, alice: world.messages(alice).count)
            let fromAlice = { (session: ChatSession, skip: Int) in
                world.messages(session).dropFirst(skip).filter { $0.type == "status" && $0.sender == "alice" }
            }
            alice.sendPresence(.status("away"))
            result.ok = result.ok && world.run { fromAlice(bob, baseline.bob).count == 1 }
            let dave = try world.connect("dave")
            result.ok = result.ok && world.run { world.joined(dave) && fromAlice(dave, 0).count == 1 }
            alice.sendPresence(.status("online"))
            result.ok = result.ok && world.run { fromAlice(bob, baseline.bob).count == 2 && fromAlice(dave, 0).count == 2 }
            world.settle(seconds: 0.2)
            result.bob = fromAlice(bob, baseline.bob)
            result.dave = fromAlice(dave, 0)
            result.alice = world.messages(alice).dropFirst(baseline.alice).filter { $0.type == "status" }
            result.carol = world.messages(carol).dropFirst(baseline.carol).filter { $0.type == "status" }
            // Every status arrived on the presence stream.
            result.ok = result.ok && world.messages(bob, type: "status", channel: .chat).isEmpty
                && world.messages(dave, type: "status", channel: .chat).isEmpty
            return result
        }
        #expect(result.ok)
        #expect(result.bob.map(\.sender) == ["alice", "alice"] && result.bob.map(\.text) == ["away", "online"])
        #expect(result.dave.map(\.text) == ["away", "online"])
        #expect(!result.alice.contains { $0.sender == "alice" })
        #expect(result.carol.isEmpty)
    }

    /// The `roster` on the presence stream after each join lists exactly the room's members, the joiner included.
    @Test func rosterListsRoomMembers() async throws {
        let rosters = try await scenario { world, _ -> (ok: Bool, alice: [ChatMessage], bob: [ChatMessage], carol: [ChatMessage]) in
            let alice = try world.connect("alice")
            var ok = world.run { world.has(alice, type: "roster") }
            let bob = try world.connect("Bob")
            ok = ok && world.run { world.has(bob, type: "roster") }
            let carol = try world.connect("carol", room: "red")
            ok = ok && world.run { world.has(carol, type: "roster") }
            carol.send(.join(room: "lobby"))
            ok = ok && world.run { world.messages(carol, type: "roster").count == 2 }
            alice.send(.join(room: "red"))
            ok = ok && world.run { world.messages(alice, type: "roster").count == 2 }
            return (ok, world.messages(alice, type: "roster", channel: .presence), world.messages(bob, type: "roster", channel: .presence),
                    world.messages(carol, type: "roster", channel: .presence))
        }
        #expect(rosters.ok)
        func members(_ roster: ChatMessage?) -> Set<String>? { roster?.members.map(Set.init) }
        #expect(rosters.alice.map(\.room) == ["lobby", "red"])
        #expect(members(rosters.alice.first) == ["alice"])
        #expect(members(rosters.alice.last) == ["alice", "carol"])
        #expect(rosters.bob.count == 1 && members(rosters.bob.first) == ["alice", "Bob"])
        #expect(rosters.carol.map(\.room) == ["red", "lobby"])
        #expect(members(rosters.carol.first) == ["carol"])
        #expect(members(rosters.carol.last) == ["alice", "Bob", "carol"])
        #expect(rosters.alice.first?.members?.count == 1 && rosters.carol.last?.members?.count == 3)
    }

    /// Clients asking for a taken nick get the first free `nick_2`, `nick_3`, ... in `welcome`, case-insensitively, within 24 characters.
    @Test func nickCollisionGetsSuffix() async throws {
        let long = "abcdefghijklmnopqrstuvwx"
        let result = try await scenario { world, _ -> (ok: Bool, assigned: [String?], joinedSenders: [String]) in
            var ok = true
            var sessions: [ChatSession] = []
            for wanted in ["alice", "alice", "ALICE", long, long] {
                let session = try world.connect(wanted)
                ok = ok && world.run { world.joined(session) }
                sessions.append(session)
            }
            let senders = sessions.compactMap { session in
                world.messages(session, type: "joined").first { $0.replay != true }?.sender
            }
            return (ok, sessions.map(\.assignedNick), senders)
        }
        #expect(result.ok)
        let expected = ["alice", "alice_2", "ALICE_3", long, "abcdefghijklmnopqrstuv_2"]
        #expect(result.assigned == expected)
        #expect(result.joinedSenders == expected)
    }
}

/// Removes a test database and its WAL side files.
func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
