import Testing

@testable import ChatTUI

struct ChatViewModelTests {
    /// Messages in a room that is not shown count as unread; showing the room clears the count.
    @Test func unreadCountsFollowTheCurrentRoom() {
        var model = sampleModel()
        #expect(model.currentRoom?.name == "lobby")
        #expect(model.room(named: "dev")?.unreadCount == 3)
        #expect(model.room(named: "lobby")?.unreadCount == 0)
        model.selectRoom(named: "dev")
        #expect(model.room(named: "dev")?.unreadCount == 0)
        model.append(ChatLine(timestamp: 0, nick: "bob", text: "psst", kind: .directMessage), to: "@bob")
        #expect(model.room(named: "@bob")?.unreadCount == 1)
    }

    /// Events, errors, history and our own lines do not count as unread.
    @Test func onlyMessagesCountAsUnread() {
        var model = sampleModel()
        for kind in ChatLine.Kind.allCases where kind != .message && kind != .directMessage {
            model.append(ChatLine(timestamp: 0, nick: "x", text: "y", kind: kind), to: "dev")
        }
        #expect(model.room(named: "dev")?.unreadCount == 3)
    }

    /// Next and previous room wrap around; Alt-digit indices out of range are ignored.
    @Test func roomSelectionWraps() {
        var model = sampleModel()
        model.selectPreviousRoom()
        #expect(model.currentRoom?.name == "dev")
        model.selectNextRoom()
        #expect(model.currentRoom?.name == "lobby")
        model.selectRoom(at: 7)
        #expect(model.currentRoom?.name == "lobby")
    }

    /// Closing a room before the current one keeps the same room current.
    @Test func closingARoomKeepsTheCurrentOne() {
        var model = sampleModel()
        model.openRoom("random")
        model.selectRoom(named: "random")
        model.closeRoom("lobby")
        #expect(model.currentRoom?.name == "random")
        model.closeRoom("random")
        #expect(model.currentRoom?.name == "dev")
        model.closeRoom("dev")
        #expect(model.currentRoom == nil)
    }

    /// An ack turns our pending line confirmed with the server's time; an unknown id changes nothing.
    @Test func ackConfirmsThePendingLine() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: 5, nick: "alice", text: "hi", kind: .ownPending, id: "m2"), to: "lobby")
        let found = model.updateOwnMessage(id: "m2", kind: .ownConfirmed, timestamp: 99)
        #expect(found)
        #expect(model.room(named: "lobby")?.lines.last?.kind == .ownConfirmed)
        #expect(model.room(named: "lobby")?.lines.last?.timestamp == 99)
        let foundUnknown = model.updateOwnMessage(id: "nope", kind: .ownFailed)
        #expect(!foundUnknown)
    }

    /// Rooms keep at most the configured number of lines, dropping the oldest.
    @Test func linesAreBounded() {
        var model = ChatViewModel(maximumLinesPerRoom: 3)
        for index in 0..<5 {
            model.append(ChatLine(timestamp: 0, nick: "n", text: "\(index)", kind: .message), to: "lobby")
        }
        #expect(model.room(named: "lobby")?.lines.map(\.text) == ["2", "3", "4"])
    }

    /// Typing text names one or two typists and counts three or more.
    @Test func typingTextByCount() {
        var model = sampleModel()
        let now = sampleTime
        #expect(model.typingText(in: 0, now: now) == "bob is typing…")
        model.setTyping("carol", in: "lobby", until: now + 6000)
        #expect(model.typingText(in: 0, now: now) == "bob and carol are typing…")
        model.setTyping("dave", in: "lobby", until: now + 6000)
        #expect(model.typingText(in: 0, now: now) == "3 people are typing…")
        #expect(model.typingText(in: 1, now: now) == nil)
        #expect(model.typingText(in: 9, now: now) == nil)
    }

    /// Typists past their expiry are left out, and removed by removeExpiredTypists.
    @Test func typistsExpire() {
        var model = sampleModel()
        model.setTyping("carol", in: "lobby", until: sampleTime + 10)
        #expect(model.typingText(in: 0, now: sampleTime + 10) == "bob is typing…")
        #expect(model.nextTypingExpiry == sampleTime + 10)
        model.removeExpiredTypists(now: sampleTime + 200_000)
        #expect(model.room(named: "lobby")?.typists.isEmpty == true)
        #expect(model.nextTypingExpiry == nil)
    }

    /// A repeated start moves the expiry and keeps the order; stop forgets the typist.
    @Test func typingStartAndStop() {
        var model = sampleModel()
        model.setTyping("carol", in: "lobby", until: sampleTime + 5)
        model.setTyping("BOB", in: "lobby", until: sampleTime + 500_000)
        #expect(model.room(named: "lobby")?.typists.map(\.nick) == ["bob", "carol"])
        #expect(model.room(named: "lobby")?.typists.first?.expiresAt == sampleTime + 500_000)
        model.stopTyping("Bob", in: "lobby")
        #expect(model.room(named: "lobby")?.typists.map(\.nick) == ["carol"])
    }

    /// Members are deduplicated case-insensitively; leaving removes the member and their typing.
    @Test func membersJoinAndLeave() {
        var model = sampleModel()
        model.setMembers(["a", "A", "b"], in: "dev")
        #expect(model.room(named: "dev")?.members == ["a", "b"])
        model.addMember("B", to: "dev")
        model.addMember("c", to: "dev")
        #expect(model.room(named: "dev")?.members == ["a", "b", "c"])
        model.removeMember("BOB", from: "lobby")
        #expect(model.room(named: "lobby")?.members == ["alice", "carol"])
        #expect(model.typingText(in: 0, now: sampleTime) == nil)
    }

    /// A nick change renames the member, the typist, the status and, for us, our own nick.
    @Test func renameEverywhere() {
        var model = sampleModel()
        model.renameUser(from: "carol", to: "caroline")
        model.renameUser(from: "bob", to: "robert")
        model.renameUser(from: "ALICE", to: "alicia")
        #expect(model.room(named: "lobby")?.members == ["robert", "alicia", "caroline"])
        #expect(model.status(of: "caroline") == .away)
        #expect(model.typingText(in: 0, now: sampleTime) == "robert is typing…")
        #expect(model.nick == "alicia")
    }

    /// Statuses default to online and can be cleared.
    @Test func statuses() {
        var model = sampleModel()
        #expect(model.status(of: "Carol") == .away)
        model.setStatus(nil, of: "carol")
        #expect(model.status(of: "carol") == .online)
    }
}
