import ChatProtocol
import ChatServerCore
import Foundation
import Testing

/// The limits of PROTOCOL.md section 12 that the core enforces (issue 10): message ids, re-joins,
/// rooms per connection, idle rooms, error texts and what reaches the log.
@Suite struct HardeningTests {
    /// A `msg` or `dm` whose id breaks the id rule is `bad-field`, without the id echoed, and
    /// is neither stored, acknowledged nor relayed; the longest valid id is accepted.
    @Test(arguments: [String(repeating: "x", count: 65), "", "a b", "id\u{1B}[2J", "\u{202E}evil", "nul\u{0}", "é"])
    func badMessageIDIsRefused(id: String) throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let msg = harness.send(.msg(room: "lobby", text: "hello", id: id), from: 1)
        #expect(msg.errorCodes(to: 1) == ["bad-field"])
        #expect(msg.chat(to: 1).first?.id == nil)
        #expect(!msg.recipients.contains(2))
        let dm = harness.send(.dm(to: "bob", text: "psst", id: id), from: 1)
        #expect(dm.errorCodes(to: 1) == ["bad-field"])
        #expect(dm.chat(to: 1).first?.id == nil)
        #expect(!dm.recipients.contains(2))
        let replay = harness.send(.history(room: "lobby", before: nil, limit: 200), from: 2)
        #expect(!replay.chat(to: 2).contains { $0.type == "msg" })
    }

    /// A 64-byte id of every allowed character is stored, acknowledged and relayed as sent.
    @Test func longestValidIDIsAccepted() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let id = String("abcXYZ019-_.:".cycled(to: 64))
        let out = harness.send(.msg(room: "lobby", text: "hello", id: id), from: 1)
        #expect(out.chat(to: 1).map(\.type) == ["ack"] && out.chat(to: 1).first?.id == id)
        #expect(out.chat(to: 2).first?.id == id)
    }

    /// An invalid id on a request that fails for another reason is not echoed in its error.
    @Test func invalidIDIsNeverEchoed() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let hostile = String(repeating: "\u{1B}]0;x\u{7}", count: 1_000)
        let out = harness.send(ChatMessage(type: "part", room: "nowhere", id: hostile), from: 1)
        #expect(out.errorCodes(to: 1) == ["not-joined"])
        #expect(out.chat(to: 1).first?.id == nil)
        let valid = harness.send(ChatMessage(type: "part", room: "nowhere", id: "P-1"), from: 1)
        #expect(valid.chat(to: 1).first?.id == "P-1")
    }

    /// An error text quotes client input only as a short, inert excerpt.
    @Test func errorTextQuotesAnExcerpt() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let nick = "\u{1B}]0;pwned\u{7}" + String(repeating: "A", count: 60_000)
        let out = harness.send(.dm(to: nick, text: "hi", id: "D-1"), from: 1)
        let error = try #require(out.chat(to: 1).first)
        #expect(error.code == "no-such-user")
        #expect(error.text.utf8.count < 100, "\(error.text.utf8.count) bytes")
        #expect(!error.text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
        let logged = out.logs.flatMap { $0.fields.values }
        #expect(!logged.contains { $0.contains("\u{1B}") || $0.utf8.count > 200 })
    }

    /// Re-joining a room stores nothing and tells no one: 40 re-joins leave a newcomer's replay
    /// with all 10 earlier messages, the re-joiner gets the replay it asked for, its own joined
    /// with the latest seq and the roster.
    @Test func rejoinStoresNothingAndTellsNoOne() throws {
        let harness = try Harness.floodFree()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        for index in 1...10 { harness.say("message \(index)", from: 2) }
        let latest: Int64 = 12
        for _ in 0..<40 {
            let out = harness.send(.join(room: "lobby", since: latest - 1), from: 1)
            #expect(out.chat(to: 1).map(\.type) == ["msg", "joined"])
            #expect(out.chat(to: 1).last?.seq == latest && out.chat(to: 1).last?.sender == "alice")
            #expect(out.presence(to: 1).map(\.type) == ["roster"])
            #expect(!out.recipients.contains(2))
        }
        let newcomer = harness.login(3, nick: "carol")
        let replayed = newcomer.chat(to: 3).filter { $0.replay == true && $0.type == "msg" }.map(\.text)
        #expect(replayed == (1...10).map { "message \($0)" })
        #expect(newcomer.chat(to: 3).last { $0.type == "joined" }?.seq == latest + 1)
    }

    /// A connection may be in 100 rooms; the 101st join is `too-many-rooms` and changes nothing;
    /// after a part, a join succeeds again.
    @Test func roomsPerConnectionAreLimited() throws {
        let harness = try Harness.floodFree()
        harness.login(1, nick: "alice")
        for index in 2...100 {
            #expect(harness.send(.join(room: "room\(index)"), from: 1).errorCodes(to: 1).isEmpty)
        }
        let refused = harness.send(ChatMessage(type: "join", room: "room101", id: "J-101"), from: 1)
        #expect(refused.errorCodes(to: 1) == ["too-many-rooms"] && refused.chat(to: 1).first?.id == "J-101")
        #expect(harness.state.who().first?.rooms.count == 100)
        #expect(harness.send(.join(room: "room50"), from: 1).errorCodes(to: 1).isEmpty, "a re-join is not a new room")
        harness.send(.part(room: "room7"), from: 1)
        #expect(harness.send(.join(room: "room101"), from: 1).errorCodes(to: 1).isEmpty)
    }

    /// Without members, at most `idleRoomLimit` rooms keep their history in memory; a forgotten
    /// room that comes back continues its seq above every seq handed out before.
    @Test func idleRoomsAreForgottenBeyondTheLimit() throws {
        var configuration = ChatServerConfiguration()
        configuration.idleRoomLimit = 2
        configuration.floodBurst = 1_000_000
        let harness = try Harness(configuration: configuration)
        harness.login(1, nick: "alice")
        var lastSeq: [String: Int64] = [:]
        for index in 1...6 {
            let room = "room\(index)"
            harness.send(.join(room: room), from: 1)
            harness.say("hello", from: 1, in: room)
            lastSeq[room] = harness.send(.part(room: room), from: 1).chat(to: 1).last?.seq
        }
        let kept = try (["lobby"] + (1...6).map { "room\($0)" }).filter { try !harness.storedEvents(inRoom: $0).isEmpty }
        #expect(kept == ["lobby", "room5", "room6"], "lobby with its member and the two most recently idle rooms")
        #expect(try harness.storedEvents(inRoom: "room1").isEmpty && harness.storedEvents(inRoom: "room6").count == 3)
        let back = harness.send(.join(room: "room1"), from: 1).chat(to: 1)
        let joinedSeq = try #require(back.last { $0.type == "joined" }?.seq)
        #expect(joinedSeq > lastSeq.values.max() ?? 0, "seq \(joinedSeq) after \(lastSeq)")
    }

    /// No log line and no message to another client ever carries a peer id, whatever happens:
    /// hello, messages, a replacement, a rename, departures.
    @Test func peerIDsNeverReachLogsOrOthers() throws {
        let harness = try Harness()
        let alicePeer = "6f1c2b3a-0000-4000-8000-00000000abcd"
        var out = harness.login(1, nick: "alice", peer: alicePeer)
        out = out + harness.login(2, nick: "bob")
        out = out + harness.say("hi", from: 1)
        out = out + harness.send(.dm(to: "bob", text: "psst", id: "D-2"), from: 1)
        out = out + harness.send(.nick("alice2"), from: 1)
        out = out + harness.send(.msg(room: "nowhere", text: "x", id: "M-9"), from: 1)
        harness.connect(3)
        out = out + harness.send(.join(nick: "alice", peer: alicePeer.uppercased(), room: "lobby"), from: 3)
        out = out + harness.disconnect(2)
        out = out + harness.disconnect(3, reason: "timeout")
        let peers = [alicePeer, Harness.peer(2)].map { $0.uppercased() }
        let ownPeer: [ClientID: String] = [1: peers[0], 2: peers[1], 3: peers[0]]
        for line in out.logs {
            for value in line.fields.values {
                #expect(!peers.contains { value.uppercased().contains($0) }, "\(line.event): \(value)")
            }
        }
        for delivery in out.deliveries {
            let text = String(decoding: delivery.payload.bytes, as: UTF8.self).uppercased()
            #expect(!peers.contains { $0 != ownPeer[delivery.client] && text.contains($0) }, "to \(delivery.client): \(text)")
        }
    }

    /// Joining a big room thousands of times before opening the presence stream holds one
    /// roster per room; flushing it is not live traffic.
    @Test func presenceBacklogHoldsOneRosterPerRoomAndFlushesAsBacklog() throws {
        let harness = try Harness.floodFree()
        for client in 1...150 { harness.login(ClientID(client), nick: "member\(client)") }
        harness.login(200, nick: "late", presence: false)
        for _ in 0..<3_000 { harness.send(.join(room: "lobby"), from: 200) }
        let flush = harness.openPresence(200)
        let rosters = flush.deliveries.filter { $0.client == 200 && $0.message.type == "roster" }
        #expect(rosters.count == 1 && rosters.first?.message.members?.count == 151)
        #expect(flush.deliveries.allSatisfy { !$0.live })
    }

    /// Departure costs O(rooms of the client): leaving 16,000 rooms takes at most about 8 times
    /// as long as leaving 2,000 (it was quadratic: 64 times), measured as the best of three.
    @Test func departureIsLinearInRoomsJoined() throws {
        func departureTime(rooms count: Int) throws -> Duration {
            var best = Duration.seconds(1_000)
            for _ in 0..<3 {
                var configuration = ChatServerConfiguration()
                configuration.maxRoomsPerClient = count
                configuration.idleRoomLimit = 2 * count
                configuration.floodBurst = 1_000_000
                let harness = try Harness(configuration: configuration)
                harness.login(1, nick: "alice")
                for index in 1..<count { harness.send(.join(room: "r\(index)"), from: 1) }
                #expect(harness.state.who().first?.rooms.count == count)
                let clock = ContinuousClock()
                var out = Outbox([])
                let elapsed = clock.measure { out = harness.disconnect(1) }
                #expect(out.logs.filter { $0.event == "disconnect" }.count == 1)
                best = min(best, elapsed)
            }
            return best
        }
        let small = try departureTime(rooms: 2_000)
        let large = try departureTime(rooms: 16_000)
        let ratio = large / small
        print("departure: 2,000 rooms \(small), 16,000 rooms \(large), ratio \(ratio)")
        #expect(ratio < 24, "2,000 rooms: \(small); 16,000 rooms: \(large)")
    }
}

extension String {
    /// The characters of `self` repeated until there are `count` of them.
    fileprivate func cycled(to count: Int) -> String {
        String((0..<count).map { Array(self)[$0 % self.count] })
    }
}
