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

/// The rest of the roster (PROTOCOL.md section 8): topic, modes, operators present and who is
/// logged in, kept as the events change them.
struct RoomInfoTests {
    static func event(_ type: String, sender: String = "alice", text: String = "", to: String? = nil, mode: String? = nil,
                      ops: [String]? = nil, account: String? = nil, members: [String]? = nil, replay: Bool = false) -> ChatMessage {
        ChatMessage(type: type, text: text, sender: sender, room: "dev", to: to, members: members, replay: replay ? true : nil,
                    account: account, mode: mode, ops: ops)
    }

    static func roster() -> ChatMessage {
        ChatMessage(type: "roster", room: "dev", members: ["alice", "bob", "carol"], topic: "hello", modes: ["invite"],
                    ops: ["alice"], identified: ["alice", "bob"])
    }

    static func joinedRoom(_ members: inout RoomMembers) {
        members.apply(roster(), ownNick: "bob")
        members.apply(ChatMessage(type: "joined", sender: "bob", room: "dev"), ownNick: "bob")
    }

    /// The roster's topic, modes, operators and logged-in members are the room's info.
    @Test func rosterGivesTheInfo() {
        var members = RoomMembers()
        Self.joinedRoom(&members)
        let info = members.info(of: "dev")
        #expect(info.topic == "hello")
        #expect(info.modes == ["invite"])
        #expect(info.operators == ["alice"])
        #expect(info.isIdentified("BOB"))
        #expect(!info.isIdentified("carol"))
    }

    /// topic, mode, op and deop events change it; a replayed one does not.
    @Test func eventsChangeTheInfo() {
        var members = RoomMembers()
        Self.joinedRoom(&members)
        members.apply(Self.event("topic", text: "new topic"), ownNick: "bob")
        members.apply(Self.event("mode", mode: "+registered"), ownNick: "bob")
        members.apply(Self.event("mode", mode: "-invite"), ownNick: "bob")
        members.apply(Self.event("op", to: "carol", ops: ["alice", "carol"]), ownNick: "bob")
        members.apply(Self.event("topic", text: "old", replay: true), ownNick: "bob")
        var info = members.info(of: "dev")
        #expect(info.topic == "new topic")
        #expect(info.modes == ["registered"])
        #expect(info.isOperator("carol"))
        members.apply(Self.event("deop", to: "carol", ops: ["alice"]), ownNick: "bob")
        members.apply(Self.event("topic", text: ""), ownNick: "bob")
        info = members.info(of: "dev")
        #expect(!info.isOperator("carol"))
        #expect(info.topic == nil)
    }

    /// kicked and banned take the named (for a ban, every listed) nick out of every list; our own means we left the room.
    @Test func kickAndBanRemove() {
        var members = RoomMembers()
        Self.joinedRoom(&members)
        members.apply(Self.event("kicked", to: "carol"), ownNick: "bob")
        #expect(members.members(of: "dev") == ["alice", "bob"])
        members.apply(ChatMessage(type: "joined", sender: "alice_2", room: "dev", account: "alice"), ownNick: "bob")
        members.apply(Self.event("banned", sender: "owner", to: "alice", members: ["alice", "alice_2"]), ownNick: "bob")
        #expect(members.members(of: "dev") == ["bob"])
        #expect(members.info(of: "dev").operators.isEmpty)
        let changed = members.apply(Self.event("kicked", sender: "op", to: "bob"), ownNick: "bob")
        #expect(changed == ["dev"])
        #expect(members.members(of: "dev").isEmpty)
    }

    /// Renames follow into the operators and logged-in lists; a live event from a logged-in user marks it so.
    @Test func renamesAndAccounts() {
        var members = RoomMembers()
        Self.joinedRoom(&members)
        members.apply(ChatMessage(type: "nick", text: "alicia", sender: "alice", room: "dev", account: "alice"), ownNick: "bob")
        let info = members.info(of: "dev")
        #expect(info.isOperator("alicia"))
        #expect(info.isIdentified("alicia"))
        members.apply(ChatMessage(type: "msg", text: "hi", sender: "carol", room: "dev", account: "carol"), ownNick: "bob")
        #expect(members.info(of: "dev").isIdentified("carol"))
        members.apply(ChatMessage(type: "joined", sender: "dave", room: "dev", account: "dave", ops: ["alicia", "dave"]), ownNick: "bob")
        #expect(members.info(of: "dev").isOperator("dave"))
        #expect(members.info(of: "dev").isIdentified("dave"))
    }

    /// Events between the own joined and a late roster apply to it, info included.
    @Test func lateRosterGetsTheEventsToo() {
        var members = RoomMembers()
        members.apply(ChatMessage(type: "joined", sender: "bob", room: "dev"), ownNick: "bob")
        members.apply(Self.event("topic", text: "later topic"), ownNick: "bob")
        members.apply(Self.event("kicked", to: "carol"), ownNick: "bob")
        members.apply(Self.roster(), ownNick: "bob")
        #expect(members.info(of: "dev").topic == "later topic")
        #expect(members.members(of: "dev") == ["alice", "bob"])
    }
}
