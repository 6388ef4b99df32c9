import ChatProtocol
import ChatServerCore
import Testing

/// The owned pieces of version 1.2's state (Sources/ChatServerCore/AlwaysOn), each on its own:
/// who may revise a message, reactions, read markers, the away reply's pace, welcome's counts,
/// an account's devices.
@Suite struct AlwaysOnStateTests {
    static func message(_ seq: Int64, _ text: String, account: String? = "alice", sender: String = "alice",
                        kind: StoredEventKind = .msg) -> StoredEvent {
        StoredEvent(room: "dev", seq: seq, ts: seq, kind: kind, sender: sender, text: text, account: account)
    }

    /// Section 17, "Who may": only the author edits; the author or a room operator redacts, in a
    /// conversation only the author; anyone reacts; the target must be a message, not redacted.
    @Test func whoMayReviseAMessage() {
        let alice = MessageAuthor(account: "Alice", peer: "P1")
        let aliceElsewhere = MessageAuthor(account: "alice", peer: "P2")
        let bob = MessageAuthor(account: "bob", peer: "P3")
        let guest = MessageAuthor(account: nil, peer: "g1")
        let sameGuest = MessageAuthor(account: nil, peer: "G1")
        let guestOnAlicesDevice = MessageAuthor(account: nil, peer: "P1")
        let target = Self.message(3, "hi")
        let member = RevisionRules.Place.room(requesterIsOperator: false)
        let op = RevisionRules.Place.room(requesterIsOperator: true)
        #expect(RevisionRules.refusal(of: .edit, by: aliceElsewhere, target: target, author: alice, in: member) == nil)
        #expect(RevisionRules.refusal(of: .edit, by: bob, target: target, author: alice, in: op) == .notAuthor)
        #expect(RevisionRules.refusal(of: .redact, by: bob, target: target, author: alice, in: member) == .notAuthor)
        #expect(RevisionRules.refusal(of: .redact, by: bob, target: target, author: alice, in: op) == nil)
        #expect(RevisionRules.refusal(of: .redact, by: bob, target: target, author: alice, in: .conversation) == .notAuthor)
        #expect(RevisionRules.refusal(of: .redact, by: alice, target: target, author: alice, in: .conversation) == nil)
        #expect(RevisionRules.refusal(of: .react, by: bob, target: target, author: alice, in: member) == nil)
        #expect(RevisionRules.refusal(of: .edit, by: sameGuest, target: target, author: guest, in: member) == nil)
        #expect(RevisionRules.refusal(of: .edit, by: guestOnAlicesDevice, target: target, author: alice, in: member) == .notAuthor)
        #expect(RevisionRules.refusal(of: .edit, by: alice, target: nil, author: nil, in: member) == .noSuchMessage)
        #expect(RevisionRules.refusal(of: .react, by: alice, target: Self.message(4, "", kind: .joined), author: alice, in: member)
            == .noSuchMessage)
        var redacted = target
        redacted.redacted = true
        #expect(RevisionRules.refusal(of: .edit, by: alice, target: redacted, author: alice, in: member) == .noSuchMessage)
        #expect(RevisionRules.replyRefusal(target: redacted) == nil)
        #expect(RevisionRules.replyRefusal(target: Self.message(5, "", kind: .topic)) == .noSuchMessage)
    }

    /// One of each value per user; a repeat or an unreact of nothing makes no event; at most 20
    /// distinct values, a value nobody gives any more frees its place; replaying events rebuilds it.
    @Test func reactionsAreOnePerUserAndBounded() {
        var tally = ReactionTally()
        do { let outcome = tally.react("+1", by: "alice"); #expect(outcome == .changed) }
        do { let outcome = tally.react("+1", by: "alice"); #expect(outcome == .unchanged) }
        do { let outcome = tally.react("+1", by: "bob"); #expect(outcome == .changed) }
        do { let outcome = tally.unreact("🎉", by: "bob"); #expect(outcome == .unchanged) }
        for value in 2...20 { #expect(tally.react("v\(value)", by: "carol") == .changed) }
        #expect(tally.counts.count == 20)
        do { let outcome = tally.react("one-too-many", by: "carol"); #expect(outcome == .tooManyValues) }
        do { let outcome = tally.react("+1", by: "carol"); #expect(outcome == .changed, "an existing value is no new one") }
        do { let outcome = tally.unreact("v20", by: "carol"); #expect(outcome == .changed) }
        do { let outcome = tally.react("one-too-many", by: "carol"); #expect(outcome == .changed) }
        #expect(tally.counts.first! == ("+1", 3))
        let events = [
            StoredEvent(room: "dev", seq: 5, ts: 5, kind: .react, sender: "alice", text: "+1", account: "Alice", ref: 3),
            StoredEvent(room: "dev", seq: 6, ts: 6, kind: .react, sender: "bob", text: "+1", ref: 3),
            StoredEvent(room: "dev", seq: 7, ts: 7, kind: .react, sender: "alice", text: "+1", account: "alice", ref: 3),
            StoredEvent(room: "dev", seq: 8, ts: 8, kind: .unreact, sender: "bob", text: "+1", ref: 3),
            StoredEvent(room: "dev", seq: 9, ts: 9, kind: .react, sender: "alice", text: "🎉", account: "alice", ref: 3),
        ]
        let replayed = ReactionTally(replaying: events)
        #expect(replayed.counts.map(\.value) == ["+1", "🎉"] && replayed.counts.map(\.count) == [1, 1])
        #expect(ReactionTally.userKey(account: nil, nick: "Bob") != ReactionTally.userKey(account: "bob", nick: "bob"))
    }

    /// Markers only move forward and are kept per account and place, for connected accounts only.
    @Test func readMarkersMoveForwardOnly() {
        var markers = ReadMarkers()
        markers.load(["dev": 5], for: "alice")
        do { let outcome = markers.raise("alice", in: "dev", to: 5); #expect(outcome == false) }
        do { let outcome = markers.raise("alice", in: "dev", to: 3); #expect(outcome == false) }
        do { let outcome = markers.raise("alice", in: "dev", to: 9); #expect(outcome) }
        let conversation = ReadMarkers.conversationTarget(with: "bob")
        do { let outcome = markers.raise("alice", in: conversation, to: 2); #expect(outcome) }
        #expect(markers.markers(of: "alice") == ["dev": 9, "@bob": 2])
        markers.forget("alice")
        #expect(markers.marker(of: "alice", in: "dev") == 0)
    }

    /// The first `dm` to an away user in an hour is answered, per (sender, away account); the
    /// pairs kept are bounded.
    @Test func awayRepliesOncePerHourPerPair() {
        var limiter = AwayReplyLimiter(limit: 3)
        do { let outcome = limiter.shouldReply(from: "bob", to: "alice", now: 0); #expect(outcome) }
        do { let outcome = limiter.shouldReply(from: "bob", to: "alice", now: 3_599_999); #expect(outcome == false) }
        do { let outcome = limiter.shouldReply(from: "carol", to: "alice", now: 10); #expect(outcome) }
        do { let outcome = limiter.shouldReply(from: "bob", to: "alice", now: 3_600_000); #expect(outcome) }
        do { let outcome = limiter.shouldReply(from: "bob", to: "alice", now: 3_600_001); #expect(outcome == false) }
        for sender in ["d", "e", "f", "g"] { _ = limiter.shouldReply(from: sender, to: "alice", now: 20) }
        #expect(limiter.count == 3)
    }

    /// Section 17: messages after the marker not sent by the account; mentions name the nick as a
    /// word; every unread `dm` of a conversation is a mention; redacted ones count in neither.
    @Test func welcomeCountsUnreadAndMentions() {
        var redacted = Self.message(8, "", account: "bob", sender: "bob")
        redacted.redacted = true
        let events = [
            Self.message(1, "old, read already alice", account: "bob", sender: "bob"),
            Self.message(4, "alice: are you there?", account: "bob", sender: "bob"),
            Self.message(5, "my own, alice", account: "Alice"),
            Self.message(6, "", account: nil, sender: "guest", kind: .joined),
            Self.message(7, "ask malice or alice_2", account: nil, sender: "guest"),
            redacted,
            Self.message(9, "report.pdf", account: "bob", sender: "bob", kind: .file),
        ]
        #expect(UnreadCount.counting(events, after: 3, account: "alice", nick: "alice", inConversation: false)
            == UnreadCount(unread: 3, mentions: 1))
        #expect(UnreadCount.counting(events, after: 3, account: "alice", nick: "alice", inConversation: true)
            == UnreadCount(unread: 3, mentions: 3))
        #expect(UnreadCount.counting(events, after: 9, account: "alice", nick: "alice", inConversation: false) == UnreadCount())
    }

    /// Devices of an account: the first arrives, others join, the limit refuses one more; the last
    /// to leave says so.
    @Test func anAccountsDevices() {
        var devices = AccountDevices()
        do { let outcome = devices.arrive(1, account: "alice", limit: 2); #expect(outcome == .first) }
        do { let outcome = devices.arrive(2, account: "alice", limit: 2); #expect(outcome == .another) }
        do { let outcome = devices.arrive(3, account: "alice", limit: 2); #expect(outcome == .tooMany) }
        do { let outcome = devices.arrive(4, account: "bob", limit: 2); #expect(outcome == .first) }
        #expect(devices.devices(of: "alice") == [1, 2])
        do { let outcome = devices.leave(1); #expect(outcome == .others(account: "alice")) }
        do { let outcome = devices.arrive(3, account: "alice", limit: 2); #expect(outcome == .another) }
        do { let outcome = devices.leave(2); #expect(outcome == .others(account: "alice")) }
        do { let outcome = devices.leave(3); #expect(outcome == .last(account: "alice")) }
        do { let outcome = devices.leave(3); #expect(outcome == .none) }
        do { let outcome = devices.leave(99); #expect(outcome == .none) }
        // A device logging in to another account leaves the first.
        do { let outcome = devices.arrive(5, account: "carol", limit: 2); #expect(outcome == .first) }
        do { let outcome = devices.arrive(5, account: "bob", limit: 2); #expect(outcome == .another) }
        #expect(devices.devices(of: "carol").isEmpty)
        #expect(devices.connectedAccounts == 1)
    }
}
