import Testing

@testable import ChatTUI

/// Issue 24: Tab completes room names (a `#` word, or a room argument) and paths (as the caller
/// found them on disk), a path with spaces as one word.
struct RoomAndPathCompletionTests {
    let rooms = CompletionCandidates(nicks: ["devon"], commands: ["/join"], rooms: ["dev", "design", "lobby"])

    @Test func aHashWordCompletesRooms() {
        var editor = makeEditor("come to #de")
        editor.complete(from: rooms)
        #expect(editor.text == "come to #dev ")
        editor.complete(from: rooms)
        #expect(editor.text == "come to #design ")
    }

    @Test func aRoomArgumentCompletesRoomsWithoutTheHash() {
        var editor = makeEditor("/join de")
        var candidates = rooms
        candidates.wantsRoom = true
        editor.complete(from: candidates)
        #expect(editor.text == "/join dev ")
        var nick = makeEditor("de")
        nick.complete(from: rooms)
        #expect(nick.text == "devon: ")
    }

    /// The caller's paths replace the word whole; an escaped space belongs to the word.
    @Test func pathsReplaceTheWord() {
        var editor = makeEditor("/send my\\ no")
        #expect(editor.wordBeforeCursor == 6..<12)
        editor.complete(from: CompletionCandidates(paths: ["my\\ notes.txt ", "my\\ novel/", "other "]))
        #expect(editor.text == "/send my\\ notes.txt ")
        editor.complete(from: CompletionCandidates(paths: ["my\\ notes.txt ", "my\\ novel/", "other "]))
        #expect(editor.text == "/send my\\ novel/")
    }
}
