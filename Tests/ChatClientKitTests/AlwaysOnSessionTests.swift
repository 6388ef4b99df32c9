import ChatProtocol
import QuicEngine
import Testing

@testable import ChatClientKit

/// Version 1.2 in the session's core (issue 28, chat-client items 2 and 3): the account's rooms
/// and conversations come back by themselves at a `welcome`, read markers move forward only and
/// only where the server keeps them.
struct AlwaysOnSessionTests {
    static let features = ["accounts", "moderation", "files", ServerFeature.alwaysOn, ServerFeature.edits, ServerFeature.reactions, ServerFeature.search]

    static func welcome(rooms: [RoomListing] = [], conversations: [ConversationListing] = [], features: [String] = features,
                        account: String? = "alice") -> ChatMessage {
        var welcome = ChatMessage(type: "welcome", text: "test server", sender: "alice", peer: "PEER", account: account, features: features,
                                  rooms: rooms)
        welcome.conversations = conversations
        return welcome
    }

    static func position(seq: Int64, read: Int64, unread: Int = 0, mentions: Int = 0) -> ReadPosition {
        ReadPosition(seq: seq, read: read, unread: unread, mentions: mentions)
    }

    /// The requests written, as `type room-or-with since/limit`.
    static func requests(_ session: VirtualSession, since mark: Int) -> [String] {
        session.actions(since: mark).compactMap { action in
            guard case .write(let message, _) = action else { return nil }
            return [message.type, message.room ?? message.with ?? "-", message.since.map { "since \($0)" },
                    message.limit.map { "limit \($0)" }, message.read.map { "read \($0)" }].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// The account's rooms that this session is not in are joined, since the read marker (none
    /// read: no since); rooms it is in or already joining are not joined twice; the conversations
    /// listed are read from history after the marker, or their newest 50.
    @Test func welcomeBringsBackRoomsAndConversations() {
        var session = VirtualSession(rooms: ["lobby", "dev"])
        session.start()
        let mark = session.actions.count
        session.receive(Self.welcome(rooms: [RoomListing(room: "lobby", position: Self.position(seq: 10, read: 10)),
                                             RoomListing(room: "dev", position: Self.position(seq: 5, read: 2)),
                                             RoomListing(room: "ops", position: Self.position(seq: 40, read: 31, unread: 9, mentions: 2)),
                                             RoomListing(room: "new", position: Self.position(seq: 3, read: 0, unread: 3))],
                                     conversations: [ConversationListing(with: "bob", position: Self.position(seq: 7, read: 4, unread: 3, mentions: 3)),
                                                     ConversationListing(with: "carol", position: Self.position(seq: 2, read: 0, unread: 2, mentions: 2))]))
        // dev was waiting to be joined already (the session's second room): it goes after them.
        #expect(Self.requests(session, since: mark) == ["join ops since 31", "join new", "history bob since 4", "history carol limit 50", "join dev"])
        #expect(session.core.readMarkers.marker(of: .room("ops")) == 31)
        #expect(session.core.readMarkers.marker(of: .conversation("Bob")) == 4)
        #expect(session.core.features.contains(ServerFeature.alwaysOn))
    }

    /// A conversation whose messages this session saw (live, before a reconnect) is asked only
    /// for what came after them, and not at all when it saw the newest.
    @Test func aReconnectAsksOnlyForWhatItMissed() {
        var session = VirtualSession()
        session.start()
        session.receive(Self.welcome())
        session.joined("lobby", seq: 1)
        session.receive(ChatMessage(type: "dm", text: "hi", sender: "bob", id: "m1", seq: 6, ts: 1, to: "alice"))
        session.receive(ChatMessage(type: "dm", text: "back", sender: "dave", id: "m2", seq: 3, ts: 1, to: "alice"))
        session.lose()
        session.advance(.seconds(20))
        let mark = session.actions.count
        session.receive(Self.welcome(conversations: [ConversationListing(with: "bob", position: Self.position(seq: 9, read: 2, unread: 7, mentions: 7)),
                                                     ConversationListing(with: "dave", position: Self.position(seq: 3, read: 0, unread: 1, mentions: 1))]))
        #expect(Self.requests(session, since: mark).filter { $0.hasPrefix("history") } == ["history bob since 6"])
    }

    /// A conversation read `since` its marker pages forward (section 17): a full page of 200 is
    /// followed by a request after its last seq; a shorter one ends it.
    @Test func aConversationsHistoryPagesForward() {
        var session = VirtualSession()
        session.start()
        session.receive(Self.welcome(conversations: [ConversationListing(with: "bob", position: Self.position(seq: 450, read: 10, unread: 440))]))
        session.joined("lobby", seq: 1)
        var mark = session.actions.count
        for seq in Int64(11)...210 {
            session.receive(ChatMessage(type: "dm", text: "m\(seq)", sender: "bob", id: "i\(seq)", seq: seq, ts: 1, to: "alice", replay: true))
        }
        session.receive(ChatMessage(type: "history-end", with: "bob"))
        #expect(Self.requests(session, since: mark) == ["history bob since 210"])
        mark = session.actions.count
        for seq in Int64(211)...250 {
            session.receive(ChatMessage(type: "dm", text: "m\(seq)", sender: "bob", id: "i\(seq)", seq: seq, ts: 1, to: "alice", replay: true))
        }
        session.receive(ChatMessage(type: "history-end", with: "bob"))
        #expect(Self.requests(session, since: mark).isEmpty)
        #expect(session.core.outbox.isEmpty)
    }

    /// A conversation's `history-end` (with `with`) answers that request, not a room's.
    @Test func aConversationsHistoryEndAnswersItsRequest() {
        var session = VirtualSession()
        session.start()
        session.receive(Self.welcome(conversations: [ConversationListing(with: "bob", position: Self.position(seq: 7, read: 0, unread: 1))]))
        session.joined("lobby", seq: 1)
        let accepted = session.send(.history(room: "lobby", limit: 5))
        #expect(accepted)
        #expect(session.core.outbox.inFlight.map(\.message.type) == ["history", "history"])
        session.receive(.historyEnd(room: "lobby"))
        #expect(session.core.outbox.inFlight.map { $0.message.room ?? $0.message.with ?? "-" } == ["bob"])
        session.receive(ChatMessage(type: "history-end", with: "Bob"))
        #expect(session.core.outbox.inFlight.isEmpty)
    }

    /// `read` goes out only forward, only to a server that keeps markers, only logged in; it
    /// waits for no answer; another device's `read` moves the marker too.
    @Test func readMarkersMoveForwardOnly() {
        var session = VirtualSession()
        session.start()
        session.receive(Self.welcome(rooms: [RoomListing(room: "lobby", position: Self.position(seq: 10, read: 8, unread: 2))]))
        session.joined("lobby", seq: 10)
        var mark = session.actions.count
        session.record(session.core.markRead(.room("lobby"), upTo: 8, now: session.now))
        session.record(session.core.markRead(.room("lobby"), upTo: 10, now: session.now))
        session.record(session.core.markRead(.room("lobby"), upTo: 10, now: session.now))
        session.record(session.core.markRead(.conversation("bob"), upTo: 3, now: session.now))
        #expect(Self.requests(session, since: mark) == ["read lobby read 10", "read bob read 3"])
        #expect(session.core.outbox.inFlight.isEmpty)
        session.receive(ChatMessage(type: "read", room: "lobby", read: 14))
        mark = session.actions.count
        session.record(session.core.markRead(.room("lobby"), upTo: 12, now: session.now))
        #expect(Self.requests(session, since: mark).isEmpty)

        // A 1.1 server (no always-on), and a guest: never.
        for welcome in [Self.welcome(features: ["accounts"]), Self.welcome(account: nil)] {
            var other = VirtualSession()
            other.start()
            other.receive(welcome)
            other.joined("lobby", seq: 10)
            let start = other.actions.count
            other.record(other.core.markRead(.room("lobby"), upTo: 10, now: other.now))
            #expect(Self.requests(other, since: start).isEmpty)
        }
    }

    /// `/away REASON` says the reason in the status's `away` field (version 1.2; a 1.1 server
    /// ignores it), a new reason is said again, every hello's status carries it, `online` drops it.
    @Test func awayCarriesItsReason() {
        var session = VirtualSession()
        session.start()
        session.receive(Self.welcome())
        func statuses(since mark: Int) -> [String] {
            session.actions(since: mark).compactMap { action in
                guard case .write(let message, .presence) = action, message.type == "status" else { return nil }
                return message.text + (message.away.map { " " + $0 } ?? "")
            }
        }
        var mark = session.actions.count
        session.record(session.core.setStatus("away", reason: "lunch", now: session.now))
        session.record(session.core.setStatus("away", reason: "lunch", now: session.now))
        session.record(session.core.setStatus("away", reason: "meeting", now: session.now))
        session.record(session.core.setStatus("away", reason: "", now: session.now))
        #expect(statuses(since: mark) == ["away lunch", "away meeting", "away"])
        session.record(session.core.setStatus("away", reason: "meeting", now: session.now))
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.last?.hello.status == "away" && session.connections.last?.hello.away == "meeting")
        mark = session.actions.count
        session.receive(Self.welcome())
        session.record(session.core.setStatus("online", reason: "ignored", now: session.now))
        #expect(statuses(since: mark) == ["online"])
        #expect(session.core.awayReason == nil)
    }

    /// A hello beyond the account's device limit (section 17: `too-many-devices`, not the
    /// hello, the connection left open) is a refusal the person is told about, as `bad-nick` is:
    /// not a session left connecting for ever.
    @Test func tooManyDevicesRefusesTheHello() {
        var session = VirtualSession()
        session.start()
        session.receive(.error(code: .tooManyDevices, text: "alice has 16 devices connected"))
        #expect(session.core.state == .refused(code: "too-many-devices", text: "alice has 16 devices connected"))
        #expect(ErrorExplanation.text(code: "too-many-devices", serverText: "").hasPrefix("Too many devices"))
        #expect(ErrorExplanation.text(code: "not-author", serverText: "") == "Only the message's author may do that")
        #expect(ErrorExplanation.text(code: "no-such-message", serverText: "").hasPrefix("There is no such message"))
    }

    /// The markers remembered are bounded: the lowest goes first.
    @Test func readMarkersAreBounded() {
        var markers = ReadMarkers()
        for index in 0..<ReadMarkers.limit { markers.learn(Int64(index + 1), of: .room("r\(index)")) }
        markers.learn(5_000, of: .conversation("bob"))
        #expect(markers.marker(of: .room("r0")) == 0)
        #expect(markers.marker(of: .room("r1")) == 2)
        #expect(markers.marker(of: .conversation("BOB")) == 5_000)
        #expect(markers.shown(.conversation("bob"), upTo: 5_000) == nil)
        #expect(markers.shown(.conversation("bob"), upTo: 5_001) == ChatMessage(type: "read", with: "bob", read: 5_001))
    }
}
