import TestSupport
import ChatClientKit
import ChatProtocol
import Foundation
import QuicEngine
import Testing

/// End to end: the real chat-server process and protocol clients on the engine over loopback.
@Suite("chat-server conversations", .serialized)
struct ConversationTests {
    struct Transcript: Sendable {
        var alice: [ChatMessage] = []
        var bob: [ChatMessage] = []
        var alicePresence: [ChatMessage] = []
        var ok = false
    }

    /// welcome, then the own `joined`, then `roster` on the presence stream; a msg is acked to its
    /// sender (never echoed) and delivered once to the other member with seq, ts and sender stamped.
    @Test func helloJoinAckAndDelivery() async throws {
        let transcript = try await scenario { world, _ in
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            var result = Transcript()
            result.ok = world.run { world.joined(alice) && world.joined(bob) && world.has(alice, type: "roster") }
            alice.send(.msg(room: "lobby", text: "hi bob", id: "M-1"))
            result.ok = result.ok && world.run { world.has(alice, type: "ack") && world.has(bob, type: "msg") }
            world.settle(seconds: 0.3)
            result.alice = world.messages(alice, channel: .chat)
            result.alicePresence = world.messages(alice, channel: .presence)
            result.bob = world.messages(bob, channel: .chat)
            return result
        }
        #expect(transcript.ok)
        #expect(transcript.alice.first?.type == "welcome")
        #expect(transcript.alice.first?.sender == "alice")
        #expect(transcript.alice.dropFirst().first?.type == "joined")
        #expect(transcript.alicePresence.contains { $0.type == "roster" && $0.members?.contains("alice") == true })
        // A roster carries `topic`, `modes` and `ops` also when the room has none (issue 23, item 20).
        let roster = try #require(transcript.alicePresence.first { $0.type == "roster" })
        #expect(roster.topic == "" && roster.modes == [] && roster.ops == [], "\(roster)")
        let ack = try #require(transcript.alice.first { $0.type == "ack" })
        #expect(ack.id == "M-1" && ack.room == "lobby" && ack.seq != nil && ack.ts != nil)
        #expect(!transcript.alice.contains { $0.type == "msg" })
        let delivered = transcript.bob.filter { $0.type == "msg" }
        #expect(delivered.count == 1)
        #expect(delivered.first?.sender == "alice" && delivered.first?.text == "hi bob" && delivered.first?.seq == ack.seq)
    }

    /// A resent msg with the same id is acked again with the same seq and not delivered twice.
    @Test func resendIsIdempotent() async throws {
        let counts = try await scenario { world, _ -> (acks: [Int64?], delivered: Int) in
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            world.run { world.joined(alice) && world.joined(bob) }
            alice.send(.msg(room: "lobby", text: "once", id: "same-id"))
            alice.send(.msg(room: "lobby", text: "once", id: "same-id"))
            world.run { world.messages(alice, type: "ack").count == 2 }
            world.settle(seconds: 0.3)
            return (world.messages(alice, type: "ack").map(\.seq), world.messages(bob, type: "msg").count)
        }
        #expect(counts.acks.count == 2 && counts.acks[0] == counts.acks[1])
        #expect(counts.delivered == 1)
    }

    /// Joining with `since` replays exactly the events after it, marked replay, before the own
    /// `joined`; joining without `since` replays the last 20.
    @Test func replayWithAndWithoutSince() async throws {
        let result = try await scenario(server: ["--flood-burst", "100"]) { world, _ -> (since: [Int64], sinceReplay: Bool, fresh: Int, freshLastSeq: Int64?, lastSeq: Int64) in
            let alice = try world.connect("alice")
            world.run { world.joined(alice) }
            for index in 1...30 { alice.send(.msg(room: "lobby", text: "m\(index)", id: "id-\(index)")) }
            world.run { world.messages(alice, type: "ack").count == 30 }
            let acks = world.messages(alice, type: "ack").compactMap(\.seq)
            guard acks.count == 30 else { return ([], false, 0, nil, 0) }
            let since = acks[24]
            let late = try world.connect("late", since: since)
            world.run { world.joined(late) }
            let fresh = try world.connect("fresh")
            world.run { world.joined(fresh) }
            let lateMessages = world.messages(late, channel: .chat)
            let joinedIndex = lateMessages.firstIndex { $0.type == "joined" && $0.sender == "late" } ?? 0
            let replayed = lateMessages[..<joinedIndex].filter { $0.type == "msg" }
            let freshReplay = world.messages(fresh, channel: .chat).filter { $0.replay == true }
            return (replayed.compactMap(\.seq), replayed.allSatisfy { $0.replay == true }, freshReplay.count,
                    freshReplay.last?.seq, acks.last ?? 0)
        }
        #expect(result.since.count == 5)
        #expect(result.since == Array((result.lastSeq - 4)...result.lastSeq))
        #expect(result.sinceReplay)
        #expect(result.fresh == 20)
        // The fresh client's replay ends with late's `joined`, the newest stored event before it.
        #expect(result.freshLastSeq == result.lastSeq + 1)
    }

    /// Three rooms with overlapping members: each message reaches exactly its room's members.
    @Test func threeRoomsWithOverlappingMembers() async throws {
        let got = try await scenario { world, _ -> [String: [String]] in
            let ann = try world.connect("ann", room: "red")
            let ben = try world.connect("ben", room: "red")
            let cat = try world.connect("cat", room: "green")
            world.run { world.joined(ann, room: "red") && world.joined(ben, room: "red") && world.joined(cat, room: "green") }
            ann.send(.join(room: "green"))
            ben.send(.join(room: "blue"))
            cat.send(.join(room: "blue"))
            world.run { world.joined(ann, room: "green") && world.joined(ben, room: "blue") && world.joined(cat, room: "blue") }
            ann.send(.msg(room: "red", text: "to red", id: "r"))
            ann.send(.msg(room: "green", text: "to green", id: "g"))
            cat.send(.msg(room: "blue", text: "to blue", id: "b"))
            world.run { world.messages(ann, type: "ack").count == 2 && world.messages(cat, type: "ack").count == 1 }
            world.settle(seconds: 0.3)
            var texts: [String: [String]] = [:]
            for (name, session) in [("ann", ann), ("ben", ben), ("cat", cat)] {
                texts[name] = world.messages(session, type: "msg").filter { $0.replay != true }.map(\.text).sorted()
            }
            return texts
        }
        #expect(got["ann"] == [])
        #expect(got["ben"] == ["to blue", "to red"])
        #expect(got["cat"] == ["to green"])
    }

    /// 200 clients in one room all receive one broadcast.
    @Test func twoHundredClientsReceiveBroadcast() async throws {
        let received = try await scenario { world, _ -> Int in
            let sessions = try (0..<200).map { try world.connect("user\($0)") }
            world.run(seconds: 60) { sessions.allSatisfy { world.joined($0) } }
            sessions[0].send(.msg(room: "lobby", text: "hello everyone", id: "broadcast"))
            world.run(seconds: 30) { sessions.dropFirst().allSatisfy { world.has($0, type: "msg") { $0.text == "hello everyone" } } }
            return sessions.dropFirst().filter { world.has($0, type: "msg") { $0.text == "hello everyone" } }.count
        }
        #expect(received == 199)
    }

    /// Typing datagrams reach the other members with `sender` stamped; a member without
    /// datagram support gets them on its presence stream instead.
    @Test func typingRelayedByDatagramOrPresenceFallback() async throws {
        let result = try await scenario { world, _ -> (datagram: ChatMessage?, fallback: ChatMessage?) in
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let old = try world.connect("oldie") { $0.maxDatagramFrameSize = 0 }
            world.run { world.joined(alice) && world.joined(bob) && world.joined(old) }
            alice.sendTyping(room: "lobby", typing: true)
            world.run { world.has(bob, type: "typing") && world.has(old, type: "typing") }
            return (world.messages(bob, type: "typing", channel: .datagram).first,
                    world.messages(old, type: "typing", channel: .presence).first)
        }
        #expect(result.datagram?.sender == "alice" && result.datagram?.text == "start")
        #expect(result.fallback?.sender == "alice" && result.fallback?.room == "lobby")
    }
}
