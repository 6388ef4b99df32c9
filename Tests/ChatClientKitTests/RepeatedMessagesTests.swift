import ChatClientKit
import ChatProtocol
import Testing

/// A room message stored twice across a server's crash (delivered when its seq was assigned,
/// resent by its author after the restart under the same id, stored under a new seq) is shown
/// once; a replay of the same seq, another sender's or another room's same id are not repeats.
struct RepeatedMessagesTests {
    /// The filter as a client keeps it (a reference, so that `#expect` may ask it).
    private final class Shown {
        var filter = RepeatedMessages()
        func isRepeat(_ message: ChatMessage) -> Bool { filter.isRepeat(message) }
    }

    private func msg(_ id: String, seq: Int64, from sender: String = "alice", room: String = "lobby", replay: Bool? = nil) -> ChatMessage {
        ChatMessage(type: "msg", text: "before the crash", sender: sender, room: room, id: id, seq: seq, ts: 1, replay: replay)
    }

    @Test func theSecondStoringOfOneMessageIsARepeat() {
        let repeated = Shown()
        #expect(!repeated.isRepeat(msg("a-1", seq: 5)))
        #expect(repeated.isRepeat(msg("a-1", seq: 7)))
        #expect(repeated.isRepeat(msg("a-1", seq: 7, replay: true)))
        // The same seq again (a join's replay) is the caller's to handle, not a repeat.
        #expect(!repeated.isRepeat(msg("a-1", seq: 5, replay: true)))
    }

    @Test func otherSendersRoomsAndMessagesWithoutIDsAreNotRepeats() {
        let repeated = Shown()
        #expect(!repeated.isRepeat(msg("x", seq: 1)))
        #expect(!repeated.isRepeat(msg("x", seq: 2, from: "bob")))
        #expect(!repeated.isRepeat(msg("x", seq: 3, room: "dev")))
        #expect(repeated.isRepeat(msg("x", seq: 4, from: "ALICE")), "nicks compare as the server compares them")
        var noID = msg("x", seq: 9)
        noID.id = nil
        #expect(!repeated.isRepeat(noID) && !repeated.isRepeat(noID))
        #expect(!repeated.isRepeat(ChatMessage(type: "dm", text: "hi", sender: "alice", id: "x", seq: 8)))
    }

    /// Memory stays bounded: the oldest of more than `capacity` messages is forgotten.
    @Test func onlyTheLastMessagesAreRemembered() {
        let repeated = Shown()
        for index in 0...RepeatedMessages.capacity { _ = repeated.isRepeat(msg("m-\(index)", seq: Int64(index) + 1)) }
        #expect(!repeated.isRepeat(msg("m-0", seq: 100_000)), "the oldest was forgotten")
        #expect(repeated.isRepeat(msg("m-\(RepeatedMessages.capacity)", seq: 100_001)))
    }
}
