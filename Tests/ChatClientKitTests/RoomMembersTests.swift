import ChatClientKit
import ChatProtocol
import Testing

struct RoomMembersTests {
    static func joined(_ nick: String, replay: Bool = false) -> ChatMessage {
        ChatMessage(type: "joined", sender: nick, room: "lobby", replay: replay ? true : nil)
    }

    static func left(_ nick: String, replay: Bool = false) -> ChatMessage {
        ChatMessage(type: "left", text: "quit", sender: nick, room: "lobby", replay: replay ? true : nil)
    }

    static func renamed(_ old: String, to new: String, replay: Bool = false) -> ChatMessage {
        ChatMessage(type: "nick", text: new, sender: old, room: "lobby", replay: replay ? true : nil)
    }

    static func roster(_ nicks: [String]) -> ChatMessage { .roster(room: "lobby", members: nicks) }

    /// The replay of a late joiner (carol joined and left, dave renamed) with the roster arriving
    /// in the middle of it gives exactly the roster, whatever comes after.
    @Test func rosterInTheMiddleOfTheReplay() {
        var members = RoomMembers()
        let stream: [ChatMessage] = [
            Self.joined("carol", replay: true), Self.roster(["bob", "dave2", "erin2"]), Self.left("carol", replay: true),
            Self.joined("dave", replay: true), Self.renamed("dave", to: "dave2", replay: true),
            Self.joined("erin", replay: true), Self.renamed("erin", to: "erin2", replay: true), Self.joined("bob"),
        ]
        for message in stream { members.apply(message, ownNick: "bob") }
        #expect(members.members(of: "lobby") == ["bob", "dave2", "erin2"])
        members.apply(Self.left("dave2"), ownNick: "bob")
        members.apply(Self.renamed("erin2", to: "erin3"), ownNick: "bob")
        #expect(members.members(of: "lobby") == ["bob", "erin3"])
    }

    /// Live events between the own `joined` and a late roster are applied to the roster.
    @Test func rosterAfterLiveEvents() {
        var members = RoomMembers()
        members.apply(Self.joined("bob"), ownNick: "bob")
        members.apply(Self.joined("carol"), ownNick: "bob")
        members.apply(Self.renamed("dave", to: "dave2"), ownNick: "bob")
        members.apply(Self.left("erin"), ownNick: "bob")
        let changed = members.apply(Self.roster(["bob", "dave", "erin"]), ownNick: "bob")
        #expect(changed == ["lobby"])
        #expect(members.members(of: "lobby") == ["bob", "dave2", "carol"])
    }

    /// A roster before the own `joined` stands; replayed events never change it.
    @Test func rosterBeforeTheOwnJoined() {
        var members = RoomMembers()
        members.apply(Self.roster(["alice", "bob"]), ownNick: "bob")
        members.apply(Self.joined("zed", replay: true), ownNick: "bob")
        members.apply(Self.joined("bob"), ownNick: "bob")
        members.apply(Self.joined("carol"), ownNick: "bob")
        #expect(members.members(of: "lobby") == ["alice", "bob", "carol"])
    }

    /// Nicks compare case-insensitively; a rename onto a nick already listed leaves one entry.
    @Test func oneEntryPerUser() {
        var members = RoomMembers()
        members.apply(Self.roster(["Alice", "alice", "bob"]), ownNick: "bob")
        members.apply(Self.joined("bob"), ownNick: "bob")
        #expect(members.members(of: "lobby") == ["Alice", "bob"])
        members.apply(Self.joined("ALICE"), ownNick: "bob")
        members.apply(Self.joined("carol"), ownNick: "bob")
        members.apply(Self.renamed("carol", to: "alice"), ownNick: "bob")
        #expect(members.members(of: "lobby") == ["Alice", "bob"])
    }

    /// Our own `left` forgets the room; after a lost connection the next roster starts afresh.
    @Test func leavingAndReconnecting() {
        var members = RoomMembers()
        members.apply(Self.roster(["bob", "carol"]), ownNick: "bob")
        members.apply(Self.joined("bob"), ownNick: "bob")
        members.connectionLost()
        #expect(members.members(of: "lobby") == ["bob", "carol"])
        members.apply(Self.joined("bob"), ownNick: "bob")
        members.apply(Self.left("carol"), ownNick: "bob")
        members.apply(Self.roster(["bob", "carol", "dave"]), ownNick: "bob")
        #expect(members.members(of: "lobby") == ["bob", "dave"])
        members.apply(Self.left("bob"), ownNick: "bob")
        #expect(members.members(of: "lobby").isEmpty)
    }

    /// Live events waiting for a roster are bounded: past the limit they are no longer kept (the
    /// list follows them as they come) and the late roster, older than the list, is not applied.
    @Test func bufferForALateRosterIsBounded() {
        var members = RoomMembers()
        members.apply(Self.joined("bob"), ownNick: "bob")
        for index in 0...1_000 { members.apply(Self.joined("user\(index)"), ownNick: "bob") }
        #expect(members.members(of: "lobby").count == 1_002)
        members.apply(Self.roster(["bob"]), ownNick: "bob")
        #expect(members.members(of: "lobby").count == 1_002)
        members.apply(Self.left("user0"), ownNick: "bob")
        #expect(members.members(of: "lobby").count == 1_001)
    }
}
