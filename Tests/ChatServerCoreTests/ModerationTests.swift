import ChatProtocol
import ChatServerCore
import Testing

/// PROTOCOL.md section 8: claim, topic, modes, kick, ban, unban, op/deop, invite, rooms, whois,
/// the roster's topic, modes and ops, and the privilege matrix.
@Suite struct ModerationTests {
    /// A world for moderation: room `dev` owned by `owner` (connection 1), who made `oper` (2) an
    /// operator; `admin` (3) is a server operator; `member` (4) is logged in; `guest` (5) is not;
    /// `target` (6), a guest, is the one acted upon. Everyone is in `dev` and `lobby`.
    static func world(_ configure: (inout ChatServerConfiguration) -> Void = { _ in }) throws -> Harness {
        var configuration = ChatServerConfiguration()
        configuration.operators = ["admin"]
        configuration.floodBurst = 10_000
        configure(&configuration)
        let harness = try Harness(configuration: configuration)
        for (client, nick) in [(UInt64(1), "owner"), (2, "oper"), (3, "admin"), (4, "member")] {
            harness.registered(client, nick: nick)
            harness.send(.join(room: "dev"), from: client)
        }
        for (client, nick) in [(UInt64(5), "guest"), (6, "target")] {
            harness.hello(client, nick: nick)
            harness.send(.join(room: "dev"), from: client)
        }
        harness.send(.claim(room: "dev"), from: 1)
        harness.send(.op(room: "dev", account: "oper"), from: 1)
        return harness
    }

    // MARK: claim

    /// The first logged-in user to claim a room owns it: an `op` event (text `owner`, with `ops`) to every member; a second claim is room-owned.
    @Test func claimMakesTheOwner() throws {
        var configuration = ChatServerConfiguration()
        configuration.lobbyClaimable = true
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "alice")
        harness.hello(2, nick: "bob")
        let out = harness.send(.claim(room: "lobby"), from: 1)
        let event = try #require(out.chat(to: 2).first)
        #expect(event.type == "op")
        #expect(event.text == "owner")
        #expect(event.to == "alice")
        #expect(event.ops == ["alice"])
        #expect(event.seq != nil)
        harness.registered(3, nick: "carol")
        #expect(harness.send(.claim(room: "lobby"), from: 3).errorCodes(to: 3) == ["room-owned"])
        #expect(harness.send(.claim(room: "lobby"), from: 2).errorCodes(to: 2) == ["not-logged-in"])
        #expect(harness.send(.claim(room: "elsewhere"), from: 3).errorCodes(to: 3) == ["not-joined"])
        #expect(harness.send(.claim(room: "Bad Room"), from: 3).errorCodes(to: 3) == ["bad-room"])
    }

    // MARK: topic

    /// In a room without owner anyone in it may set the topic; the event is stored and replayed; roster carries it.
    @Test func topicInUnownedRoom() throws {
        let harness = try Harness()
        harness.hello(1, nick: "guest1")
        harness.hello(2, nick: "guest2")
        let out = harness.send(.topic(room: "lobby", text: "welcome\nall"), from: 1)
        let event = try #require(out.chat(to: 2).first)
        #expect(event.type == "topic")
        #expect(event.text == "welcome all")
        #expect(event.sender == "guest1")
        #expect(event.seq != nil)
        let late = harness.hello(3, nick: "guest3")
        #expect(late.chat(to: 3).contains { $0.type == "topic" && $0.replay == true && $0.text == "welcome all" })
        #expect(late.presence(to: 3).first { $0.type == "roster" }?.topic == "welcome all")
        #expect(harness.send(.topic(room: "lobby", text: String(repeating: "t", count: 513)), from: 1).errorCodes(to: 1) == ["too-large"])
        harness.send(.topic(room: "lobby", text: ""), from: 1)
        #expect(harness.hello(4, nick: "guest4").presence(to: 4).first { $0.type == "roster" }?.topic == "", "cleared: the empty topic")
    }

    /// A roster carries `topic`, `modes` and `ops` whether or not the room has any (PROTOCOL.md
    /// section 8; issue 23, item 20: they were left out when empty): `""` and `[]` then.
    @Test func rosterAlwaysCarriesTopicModesAndOps() throws {
        let harness = try Harness()
        let plain = try #require(harness.hello(1, nick: "guest1").presence(to: 1).first { $0.type == "roster" })
        #expect(plain.topic == "" && plain.modes == [] && plain.ops == [] && plain.identified == nil, "\(plain)")
        harness.send(.topic(room: "lobby", text: "hi"), from: 1)
        let topical = try #require(harness.hello(2, nick: "guest2").presence(to: 2).first { $0.type == "roster" })
        #expect(topical.topic == "hi" && topical.modes == [] && topical.ops == [])
    }

    // MARK: modes

    /// +invite: the uninvited get not-invited, the invited (by account, or a guest by peer) get in; operators pass.
    @Test func inviteOnlyRoom() throws {
        let harness = try Self.world()
        harness.send(.mode(room: "dev", "+invite"), from: 1)
        harness.registered(10, nick: "friend")
        #expect(harness.send(.join(room: "dev"), from: 10).errorCodes(to: 10) == ["not-invited"])
        let invited = harness.send(.invite(room: "dev", nick: "friend"), from: 2)
        #expect(invited.chat(to: 10).first == ChatMessage(.invite, sender: "oper", room: "dev", ts: harness.now))
        #expect(invited.chat(to: 2).first?.to == "friend")
        #expect(harness.send(.join(room: "dev"), from: 10).errorCodes(to: 10).isEmpty)
        // A guest is invited by its peer.
        harness.hello(11, nick: "visitor")
        #expect(harness.send(.join(room: "dev"), from: 11).errorCodes(to: 11) == ["not-invited"])
        harness.send(.invite(room: "dev", nick: "visitor"), from: 1)
        #expect(harness.send(.join(room: "dev"), from: 11).errorCodes(to: 11).isEmpty)
        // The invite follows the account to another connection.
        harness.disconnect(10)
        harness.hello(12, nick: "friend", password: "password1")
        #expect(harness.send(.join(room: "dev"), from: 12).errorCodes(to: 12).isEmpty)
        // An error names the room.
        harness.hello(13, nick: "stranger")
        #expect(harness.send(.join(room: "dev"), from: 13).chat(to: 13).first?.room == "dev")
    }

    /// +registered: guests may not join, nor speak if they are in; logged-in users may; -registered lifts it.
    @Test func registeredOnlyRoom() throws {
        let harness = try Self.world()
        let changed = harness.send(.mode(room: "dev", "+registered"), from: 2)
        #expect(changed.chat(to: 5).first?.type == "mode")
        #expect(changed.chat(to: 5).first?.mode == "+registered")
        #expect(harness.say("hi", from: 5, in: "dev").errorCodes(to: 5) == ["account-required"])
        #expect(harness.say("hi", from: 4, in: "dev").errorCodes(to: 4).isEmpty)
        harness.hello(10, nick: "newguest")
        #expect(harness.send(.join(room: "dev"), from: 10).errorCodes(to: 10) == ["account-required"])
        harness.send(.mode(room: "dev", "-registered"), from: 2)
        #expect(harness.send(.join(room: "dev"), from: 10).errorCodes(to: 10).isEmpty)
    }

    /// A mode already set is answered to the asker alone, without seq; a bad mode is bad-field; the roster lists modes.
    @Test func modeDetails() throws {
        let harness = try Self.world()
        harness.send(.mode(room: "dev", "+invite"), from: 1)
        let again = harness.send(.mode(room: "dev", "+invite"), from: 1)
        #expect(again.recipients == [1])
        #expect(again.chat(to: 1).first?.seq == nil)
        #expect(harness.send(.mode(room: "dev", "+moderated"), from: 1).errorCodes(to: 1) == ["bad-field"])
        harness.send(.mode(room: "dev", "+registered"), from: 1)
        harness.send(.part(room: "dev"), from: 3)
        let roster = harness.send(.join(room: "dev"), from: 3).presence(to: 3).first { $0.type == "roster" }
        #expect(roster?.modes == ["invite", "registered"])
        #expect(roster?.ops == ["oper", "owner"])
    }

    // MARK: kick

    /// kick: `kicked` to every member (the kicked too, with reason); the kicked is no longer a member; its other rooms are untouched.
    @Test func kickRemovesFromTheRoom() throws {
        let harness = try Self.world()
        let out = harness.send(.kick(room: "dev", nick: "target", reason: "spam"), from: 2)
        let event = try #require(out.chat(to: 6).first)
        #expect(event.type == "kicked")
        #expect(event.sender == "oper")
        #expect(event.to == "target")
        #expect(event.text == "spam")
        #expect(out.chat(to: 4).first?.type == "kicked")
        #expect(harness.say("still here?", from: 6, in: "dev").errorCodes(to: 6) == ["not-joined"])
        #expect(harness.say("lobby works", from: 6).errorCodes(to: 6).isEmpty)
        #expect(harness.send(.join(room: "dev"), from: 6).errorCodes(to: 6).isEmpty)
        #expect(harness.send(.kick(room: "dev", nick: "nobody"), from: 2).errorCodes(to: 2) == ["no-such-user"])
    }

    /// Nobody below may act on someone above: an operator cannot kick the owner or a server operator; the owner can kick an operator.
    @Test func targetsMayNotRankAbove() throws {
        let harness = try Self.world()
        #expect(harness.send(.kick(room: "dev", nick: "owner"), from: 2).errorCodes(to: 2) == ["not-operator"])
        #expect(harness.send(.kick(room: "dev", nick: "admin"), from: 1).errorCodes(to: 1) == ["not-operator"])
        #expect(harness.send(.ban(room: "dev", target: "owner"), from: 2).errorCodes(to: 2) == ["not-operator"])
        #expect(harness.send(.kick(room: "dev", nick: "oper"), from: 1).errorCodes(to: 1).isEmpty)
        #expect(harness.send(.kick(room: "dev", nick: "owner"), from: 3).errorCodes(to: 3).isEmpty)
    }

    // MARK: ban and unban

    /// ban of a logged-in nick bans the account: `banned` to all, removed; every connection of it refused at join, also later.
    @Test func banOfAnAccount() throws {
        let harness = try Self.world()
        let out = harness.send(.ban(room: "dev", target: "member", reason: "rude"), from: 1)
        #expect(out.chat(to: 4).first?.type == "banned")
        #expect(out.chat(to: 4).first?.to == "member")
        #expect(out.chat(to: 4).first?.members == ["member"])
        #expect(out.chat(to: 5).first?.text == "rude")
        #expect(harness.send(.join(room: "dev"), from: 4).errorCodes(to: 4) == ["banned"])
        harness.hello(20, nick: "member", password: "password1")
        #expect(harness.send(.join(room: "dev"), from: 20).errorCodes(to: 20) == ["banned"])
        // A ban already there is answered to the asker alone; unban lifts it with an `unbanned` event.
        #expect(harness.send(.ban(room: "dev", target: "member"), from: 1).recipients == [1])
        let lifted = harness.send(.unban(room: "dev", target: "MEMBER"), from: 1)
        #expect(lifted.chat(to: 5).first?.type == "unbanned")
        #expect(lifted.chat(to: 5).first?.to == "member")
        #expect(harness.send(.join(room: "dev"), from: 20).errorCodes(to: 20).isEmpty)
        #expect(harness.send(.unban(room: "dev", target: "member"), from: 1).errorCodes(to: 1) == ["no-such-user"])
    }

    /// A ban of an account removes every connection of it, and the event lists their nicks (`members`).
    @Test func banRemovesEveryConnectionOfTheAccount() throws {
        let harness = try Self.world()
        harness.hello(20, nick: "member", password: "password1")
        harness.send(.join(room: "dev"), from: 20)
        let out = harness.send(.ban(room: "dev", target: "member_2"), from: 1)
        #expect(out.chat(to: 5).first?.to == "member")
        #expect(out.chat(to: 5).first?.members == ["member", "member_2"])
        #expect(harness.say("x", from: 4, in: "dev").errorCodes(to: 4) == ["not-joined"])
        #expect(harness.say("x", from: 20, in: "dev").errorCodes(to: 20) == ["not-joined"])
        // A replay of the event does not carry the list (it was true at that moment only).
        harness.send(.part(room: "dev"), from: 5)
        #expect(harness.send(.join(room: "dev"), from: 5).chat(to: 5).first { $0.type == "banned" }?.members == nil)
    }

    /// A ban of an account that is not connected, by name, works and holds when it connects.
    @Test func banOfAnOfflineAccount() throws {
        let harness = try Self.world()
        harness.registered(30, nick: "absent")
        harness.disconnect(30)
        #expect(harness.send(.ban(room: "dev", target: "absent"), from: 1).chat(to: 5).first?.type == "banned")
        harness.hello(31, nick: "absent", password: "password1")
        #expect(harness.send(.join(room: "dev"), from: 31).errorCodes(to: 31) == ["banned"])
        #expect(harness.send(.ban(room: "dev", target: "ghost"), from: 1).errorCodes(to: 1) == ["no-such-user"])
    }

    /// A guest ban takes its peer and address: the same peer, or another guest at its address, is refused; a logged-in user at that
    /// address whose account is older than the ban is not (one registered since is: GuestBanAfterLoginTests).
    @Test func banOfAGuest() throws {
        let harness = try Self.world()
        harness.registered(42, nick: "neighbour")
        harness.disconnect(42)
        harness.advance(1)
        harness.send(.ban(room: "dev", target: "target"), from: 1)
        harness.disconnect(6)
        harness.hello(40, nick: "target", address: "10.0.0.6", peer: Harness.peer(6))
        #expect(harness.send(.join(room: "dev"), from: 40).errorCodes(to: 40) == ["banned"])
        harness.hello(41, nick: "sibling", address: "10.0.0.6")
        #expect(harness.send(.join(room: "dev"), from: 41).errorCodes(to: 41) == ["banned"])
        harness.hello(43, nick: "neighbour", password: "password1", address: "10.0.0.6")
        #expect(harness.send(.join(room: "dev"), from: 43).errorCodes(to: 43).isEmpty)
        #expect(harness.send(.unban(room: "dev", target: "target"), from: 1).errorCodes(to: 1).isEmpty)
        #expect(harness.send(.join(room: "dev"), from: 41).errorCodes(to: 41).isEmpty)
    }

    /// A guest ban from a shared (exempt) address holds its peer only: another guest at that address is not banned.
    @Test func banOfAGuestOnASharedAddress() throws {
        let harness = try Self.world()
        harness.hello(40, nick: "local1", address: "127.0.0.1", shared: true)
        harness.send(.join(room: "dev"), from: 40)
        harness.send(.ban(room: "dev", target: "local1"), from: 1)
        harness.hello(41, nick: "local2", address: "127.0.0.1", shared: true)
        #expect(harness.send(.join(room: "dev"), from: 41).errorCodes(to: 41).isEmpty)
        #expect(harness.send(.join(room: "dev"), from: 40).errorCodes(to: 40) == ["banned"])
    }

    /// A guest in a room who logs in to an account banned there may no longer speak in it.
    @Test func loggingInToABannedAccountSilences() throws {
        let harness = try Self.world()
        harness.registered(50, nick: "rogue")
        harness.disconnect(50)
        harness.send(.ban(room: "dev", target: "rogue"), from: 1)
        harness.hello(51, nick: "innocent")
        harness.send(.join(room: "dev"), from: 51)
        harness.finishPasswordWork(harness.send(.login(account: "rogue", password: "password1"), from: 51))
        #expect(harness.say("sneaky", from: 51, in: "dev").errorCodes(to: 51) == ["banned"])
    }

    /// Bans per room are bounded: quota-exceeded beyond the limit.
    @Test func bansPerRoomAreBounded() throws {
        let harness = try Self.world { $0.maxBansPerRoom = 2 }
        for index in 0..<3 {
            harness.registered(UInt64(60 + index), nick: "spammer\(index)")
            harness.disconnect(UInt64(60 + index))
        }
        #expect(harness.send(.ban(room: "dev", target: "spammer0"), from: 1).errorCodes(to: 1).isEmpty)
        #expect(harness.send(.ban(room: "dev", target: "spammer1"), from: 1).errorCodes(to: 1).isEmpty)
        #expect(harness.send(.ban(room: "dev", target: "spammer2"), from: 1).errorCodes(to: 1) == ["quota-exceeded"])
    }

    // MARK: op and deop

    /// op makes an account an operator (event with `to` and the new `ops`); deop takes it back; the owner cannot be deopped.
    @Test func opAndDeop() throws {
        let harness = try Self.world()
        let out = harness.send(.op(room: "dev", account: "member"), from: 1)
        let event = try #require(out.chat(to: 5).first)
        #expect(event.type == "op")
        #expect(event.to == "member")
        #expect(event.ops == ["member", "oper", "owner"])
        #expect(harness.send(.kick(room: "dev", nick: "target"), from: 4).errorCodes(to: 4).isEmpty)
        let taken = harness.send(.deop(room: "dev", account: "member"), from: 1)
        #expect(taken.chat(to: 5).first?.type == "deop")
        #expect(taken.chat(to: 5).first?.ops == ["oper", "owner"])
        #expect(harness.send(.deop(room: "dev", account: "owner"), from: 1).errorCodes(to: 1) == ["not-operator"])
        #expect(harness.send(.op(room: "dev", account: "guest"), from: 1).errorCodes(to: 1) == ["no-such-user"])
        // Operators rejoining are marked: their `joined` carries `ops`.
        harness.send(.part(room: "dev"), from: 2)
        #expect(harness.send(.join(room: "dev"), from: 2).chat(to: 5).first { $0.type == "joined" }?.ops == ["oper", "owner"])
    }

    /// Operators per room are bounded.
    @Test func operatorsPerRoomAreBounded() throws {
        let harness = try Self.world { $0.maxOperatorsPerRoom = 1 }
        #expect(harness.send(.op(room: "dev", account: "member"), from: 1).errorCodes(to: 1) == ["quota-exceeded"])
    }

    /// Invites per room are bounded.
    @Test func invitesPerRoomAreBounded() throws {
        let harness = try Self.world { $0.maxInvitesPerRoom = 1 }
        #expect(harness.send(.invite(room: "dev", nick: "member"), from: 1).errorCodes(to: 1).isEmpty)
        #expect(harness.send(.invite(room: "dev", nick: "guest"), from: 1).errorCodes(to: 1) == ["quota-exceeded"])
    }

    // MARK: The privilege matrix

    enum Role: String, CaseIterable, Sendable {
        case guest, member, roomOperator, owner, serverOperator

        var client: UInt64 {
            switch self {
            case .guest: 5
            case .member: 4
            case .roomOperator: 2
            case .owner: 1
            case .serverOperator: 3
            }
        }
    }

    /// Every moderation request of section 8 from each rank: at least room operator (op and deop: owner) may, below not-operator.
    @Test(arguments: Role.allCases)
    func privilegeMatrix(_ role: Role) throws {
        let requests: [(name: String, minimum: Role, message: ChatMessage)] = [
            ("topic", .roomOperator, .topic(room: "dev", text: "new topic")),
            ("mode", .roomOperator, .mode(room: "dev", "+invite")),
            ("invite", .roomOperator, .invite(room: "dev", nick: "outsider")),
            ("kick", .roomOperator, .kick(room: "dev", nick: "target")),
            ("ban", .roomOperator, .ban(room: "dev", target: "target")),
            ("unban", .roomOperator, .unban(room: "dev", target: "pest")),
            ("op", .owner, .op(room: "dev", account: "candidate")),
            ("deop", .owner, .deop(room: "dev", account: "oper")),
        ]
        let ranks = Role.allCases
        for request in requests {
            let harness = try Self.world()
            harness.hello(7, nick: "outsider")
            harness.registered(8, nick: "candidate")
            harness.registered(9, nick: "pest")
            harness.disconnect(9)
            harness.send(.ban(room: "dev", target: "pest"), from: 1)
            let out = harness.send(request.message, from: role.client)
            let allowed = ranks.firstIndex(of: role)! >= ranks.firstIndex(of: request.minimum)!
            #expect(out.errorCodes(to: role.client) == (allowed ? [] : ["not-operator"]), "\(request.name) by \(role)")
            if allowed {
                // Answered with the room event (or, for invite, the notice), seq and all.
                #expect(out.chat(to: role.client).contains { $0.sender == harness.state.nick(of: role.client) }, "\(request.name) by \(role)")
            }
        }
    }

    /// A server operator acts in a room without owner too; nobody else may moderate it (topic aside).
    @Test func unownedRoomsAreModeratedByServerOperatorsOnly() throws {
        var configuration = ChatServerConfiguration()
        configuration.operators = ["admin"]
        let harness = try Harness(configuration: configuration)
        harness.registered(1, nick: "alice")
        harness.registered(2, nick: "admin")
        harness.hello(3, nick: "guest")
        #expect(harness.send(.mode(room: "lobby", "+invite"), from: 1).errorCodes(to: 1) == ["not-operator"])
        #expect(harness.send(.kick(room: "lobby", nick: "guest"), from: 1).errorCodes(to: 1) == ["not-operator"])
        #expect(harness.send(.kick(room: "lobby", nick: "guest"), from: 2).errorCodes(to: 2).isEmpty)
        #expect(harness.send(.topic(room: "lobby", text: "anyone"), from: 1).errorCodes(to: 1).isEmpty)
    }

    // MARK: The whole server

    /// kick without room (server operators only): `kicked` to the target, then KICKED; others get not-operator.
    @Test func serverKick() throws {
        let harness = try Self.world()
        #expect(harness.send(.kick(room: nil, nick: "target"), from: 1).errorCodes(to: 1) == ["not-operator"])
        let out = harness.send(.kick(room: nil, nick: "target", reason: "bye"), from: 3)
        #expect(out.chat(to: 6).first?.type == "kicked")
        #expect(out.chat(to: 6).first?.room == nil)
        #expect(out.closes.map(\.code) == [.kicked])
        #expect(out.chat(to: 3).first?.to == "target")
        #expect(out.chat(to: 4).contains { $0.type == "left" && $0.text == "kicked" })
    }

    /// ban without room: BANNED for every matching connection; a banned account's next hello is `error banned` and BANNED; unban lifts it.
    @Test func serverBan() throws {
        let harness = try Self.world()
        #expect(harness.send(.ban(room: nil, target: "member"), from: 1).errorCodes(to: 1) == ["not-operator"])
        harness.hello(20, nick: "member", password: "password1")
        let out = harness.send(.ban(room: nil, target: "member", reason: "abuse"), from: 3)
        #expect(Set(out.closes.map(\.client)) == [4, 20])
        #expect(out.closes.allSatisfy { $0.code == .banned })
        #expect(out.chat(to: 4).first?.type == "banned")
        let again = harness.hello(21, nick: "member", password: "password1")
        #expect(again.errorCodes(to: 21) == ["banned"])
        #expect(again.closes.map(\.code) == [.banned])
        // A guest holding another nick cannot log in to it after the hello either.
        harness.hello(22, nick: "sneaky")
        let login = harness.finishPasswordWork(harness.send(.login(account: "member", password: "password1"), from: 22))
        #expect(login.closes.map(\.code) == [.banned])
        #expect(harness.send(.ban(room: nil, target: "admin"), from: 3).errorCodes(to: 3) == ["not-operator"])
        #expect(harness.send(.unban(room: nil, target: "member"), from: 3).chat(to: 3).first?.type == "unbanned")
        #expect(harness.hello(23, nick: "member", password: "password1").chat(to: 23).first?.account == "member")
    }

    /// A server ban of a guest bans its peer and address: another guest there is refused at hello, a logged-in user there whose
    /// account is older than the ban is not.
    @Test func serverBanOfAGuest() throws {
        let harness = try Self.world()
        harness.advance(1)
        harness.send(.ban(room: nil, target: "target"), from: 3)
        let sibling = harness.hello(30, nick: "sibling", address: "10.0.0.6")
        #expect(sibling.errorCodes(to: 30) == ["banned"])
        #expect(sibling.closes.map(\.code) == [.banned])
        let member = harness.hello(31, nick: "member", password: "password1", address: "10.0.0.6")
        #expect(member.closes.isEmpty)
    }

    /// Server bans are bounded.
    @Test func serverBansAreBounded() throws {
        let harness = try Self.world { $0.maxServerBans = 1 }
        #expect(harness.send(.ban(room: nil, target: "guest"), from: 3).errorCodes(to: 3).isEmpty)
        #expect(harness.send(.ban(room: nil, target: "target"), from: 3).errorCodes(to: 3) == ["quota-exceeded"])
    }

    /// The console's server bans are bounded too (before, the console stored past the bound); a
    /// ban of an account already banned stores nothing new, so it is no more at the bound.
    @Test func consoleServerBansAreBounded() throws {
        let harness = try Self.world { $0.maxServerBans = 1 }
        let first = Outbox(harness.settle(harness.state.operatorBan("member", room: nil, reason: "", now: harness.now)))
        #expect(OperatorNameTests.console(first.actions) == ["banned member from the server"])
        #expect(first.closes.map(\.code) == [.banned])
        let again = harness.settle(harness.state.operatorBan("member", room: nil, reason: "", now: harness.now))
        #expect(OperatorNameTests.console(again) == ["banned member from the server"])
        let second = Outbox(harness.settle(harness.state.operatorBan("target", room: nil, reason: "", now: harness.now)))
        #expect(OperatorNameTests.console(second.actions) == ["the server keeps at most 1 bans; unban one first"])
        #expect(second.closes.isEmpty)
        let lifted = harness.state.operatorUnban("member", room: nil, now: harness.now)
        _ = harness.settle(lifted.actions)
        #expect(lifted.answer == "lifted the server ban of member")
        let third = Outbox(harness.settle(harness.state.operatorBan("target", room: nil, reason: "", now: harness.now)))
        #expect(OperatorNameTests.console(third.actions) == ["banned target from the server"])
        #expect(third.closes.map(\.code) == [.banned])
    }

    // MARK: rooms and whois

    /// rooms lists rooms that are not invite-only, most members first, with topics.
    @Test func roomsListing() throws {
        let harness = try Self.world()
        harness.send(.topic(room: "dev", text: "the dev room"), from: 1)
        harness.send(.join(room: "quiet"), from: 5)
        harness.send(.join(room: "secret"), from: 3)
        harness.send(.claim(room: "secret"), from: 3)
        harness.send(.mode(room: "secret", "+invite"), from: 3)
        let listing = try #require(harness.send(.listRooms(), from: 4).chat(to: 4).first)
        #expect(listing.type == "rooms")
        #expect(listing.rooms == [
            RoomListing(room: "dev", members: 6, topic: "the dev room"), RoomListing(room: "lobby", members: 6),
            RoomListing(room: "quiet", members: 1),
        ])
    }

    /// rooms lists at most 1,000 rooms: the fullest first, the rest left out.
    @Test func roomsListingIsBounded() throws {
        let harness = try Harness.floodFree()
        harness.hello(1, nick: "asker")
        for index in 0..<(ChatLimits.maxRoomsListed + 5) {
            harness.hello(UInt64(10 + index), nick: "u\(index)", room: "room\(index)")
        }
        harness.send(.join(room: "room7"), from: 1)
        let listing = try #require(harness.send(.listRooms(), from: 1).chat(to: 1).first?.rooms)
        #expect(listing.count == ChatLimits.maxRoomsListed)
        #expect(listing.first == RoomListing(room: "room7", members: 2))
        #expect(listing[1] == RoomListing(room: "lobby", members: 1))
    }

    /// whois: account, status and the rooms shared or public; an offline account; an unknown name is no-such-user.
    @Test func whois() throws {
        let harness = try Self.world()
        harness.send(.join(room: "secret"), from: 4)
        harness.send(.claim(room: "secret"), from: 4)
        harness.send(.mode(room: "secret", "+invite"), from: 4)
        let seen = try #require(harness.send(.whois("member"), from: 5).chat(to: 5).first)
        #expect(seen.type == "whois")
        #expect(seen.sender == "member")
        #expect(seen.account == "member")
        #expect(seen.text == "online")
        #expect(seen.rooms?.map(\.room) == ["dev", "lobby"])
        #expect(harness.send(.whois("member"), from: 4).chat(to: 4).first?.rooms?.map(\.room) == ["dev", "lobby", "secret"])
        #expect(harness.send(.whois("guest"), from: 4).chat(to: 4).first?.account == nil)
        harness.registered(9, nick: "away")
        harness.disconnect(9)
        #expect(harness.send(.whois("away"), from: 4).chat(to: 4).first?.text == "offline")
        #expect(harness.send(.whois("nobody"), from: 4).errorCodes(to: 4) == ["no-such-user"])
    }

    // MARK: Store failures

    /// A room whose settings cannot be read is not joined (unavailable), never assumed open; a failed change answers unavailable and changes nothing.
    @Test func storeFailuresRefuse() throws {
        let store = InMemoryAccountStore()
        var configuration = ChatServerConfiguration()
        configuration.lobbyClaimable = true
        let harness = try Harness(configuration: configuration, accounts: store)
        harness.registered(1, nick: "alice")
        store.failure = "disk on fire"
        #expect(harness.send(.join(room: "newroom"), from: 1).errorCodes(to: 1) == ["unavailable"])
        #expect(harness.send(.claim(room: "lobby"), from: 1).errorCodes(to: 1) == ["unavailable"])
        harness.connect(2, certificate: nil)
        #expect(harness.send(.join(nick: "bob", peer: Harness.peer(2), room: "lobby"), from: 2).errorCodes(to: 2) == ["unavailable"])
        store.failure = nil
        #expect(harness.send(.claim(room: "lobby"), from: 1).chat(to: 1).first?.type == "op")
    }
}
