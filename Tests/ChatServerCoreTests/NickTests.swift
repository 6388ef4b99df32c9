import ChatProtocol
import ChatServerCore
import Testing

@Suite struct NickTests {
    /// A nick change produces one stored nick event per room, to that room's members and the renamer.
    @Test func oneNickEventPerRoom() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.send(.join(room: "dev"), from: 1)
        harness.login(2, nick: "bob")
        harness.login(3, nick: "carol", room: "dev")
        let out = harness.send(.nick("alicia"), from: 1)
        let toAlice = out.chat(to: 1)
        #expect(toAlice.map(\.room) == ["lobby", "dev"])
        #expect(toAlice.allSatisfy { $0.type == "nick" && $0.sender == "alice" && $0.text == "alicia" && $0.seq != nil })
        #expect(out.chat(to: 2).map(\.room) == ["lobby"])
        #expect(out.chat(to: 2).first?.seq == 3)
        #expect(out.chat(to: 3).map(\.room) == ["dev"])
        #expect(out.chat(to: 3).first?.seq == 3)
        #expect(harness.state.nick(of: 1) == "alicia")
        let stored = harness.send(.history(room: "dev", limit: 1), from: 3).chat(to: 3).first
        #expect(stored?.type == "nick" && stored?.text == "alicia")
    }

    /// A nick held by someone else, in any case, is nick-in-use.
    @Test func takenNickIsNickInUse() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.send(ChatMessage(.nick, text: "BOB", id: "N1"), from: 1)
        #expect(out.errorCodes(to: 1) == ["nick-in-use"])
        #expect(out.chat(to: 1).first?.id == "N1")
        #expect(out.chat(to: 2).isEmpty)
        #expect(harness.state.nick(of: 1) == "alice")
    }

    /// An invalid nick is bad-nick.
    @Test func invalidNickIsBadNick() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        #expect(harness.send(.nick("_alice"), from: 1).errorCodes(to: 1) == ["bad-nick"])
        #expect(harness.send(.nick(""), from: 1).errorCodes(to: 1) == ["bad-nick"])
    }

    /// Changing only the case of one's own nick is allowed.
    @Test func caseChangeOfOwnNickIsAllowed() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        let out = harness.send(.nick("Alice"), from: 1)
        #expect(out.chat(to: 1).map(\.text) == ["Alice"])
        #expect(harness.state.nick(of: 1) == "Alice")
    }

    /// Outside any room the renamer still gets one nick message, without room or seq.
    @Test func renameOutsideRoomsIsConfirmedToRenamer() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.send(.part(room: "lobby"), from: 1)
        let out = harness.send(.nick("ally"), from: 1)
        let confirmation = out.chat(to: 1)
        #expect(confirmation.count == 1)
        #expect(confirmation[0].type == "nick" && confirmation[0].sender == "alice" && confirmation[0].text == "ally")
        #expect(confirmation[0].room == nil && confirmation[0].seq == nil)
    }

    /// Renaming to the current nick is confirmed to the renamer only and stores nothing.
    @Test func unchangedNickIsConfirmedOnly() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.login(2, nick: "bob")
        let out = harness.send(.nick("alice"), from: 1)
        #expect(out.chat(to: 1).map(\.seq) == [nil])
        #expect(out.chat(to: 2).isEmpty)
    }

    /// After a rename the old nick is free and the new one reaches the user.
    @Test func oldNickIsFreedAndNewOneIsReachable() throws {
        let harness = try Harness()
        harness.login(1, nick: "alice")
        harness.send(.nick("alicia"), from: 1)
        #expect(harness.login(2, nick: "alice").chat(to: 2).first?.sender == "alice")
        #expect(harness.send(.dm(to: "alicia", text: "hi", id: "X"), from: 2).chat(to: 1).map(\.type) == ["dm"])
        #expect(harness.send(.dm(to: "alice", text: "hi", id: "Y"), from: 1).chat(to: 2).map(\.type) == ["dm"])
    }
}
