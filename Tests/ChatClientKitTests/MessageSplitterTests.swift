import ChatClientKit
import Testing

struct MessageSplitterTests {
    /// Text within the limit is one message; longer text is cut into pieces within it, whole
    /// characters each (a letter keeps its combining accent), nothing lost.
    @Test func cutsBetweenCharacters() {
        #expect(MessageSplitter.split("short") == ["short"])
        let text = String(repeating: "é", count: 2001) + String(repeating: "e\u{301}", count: 700)
        let pieces = MessageSplitter.split(text)
        #expect(pieces.count == 2)
        #expect(pieces.allSatisfy { $0.utf8.count <= 4096 })
        #expect(pieces[0].utf8.count == 4095)
        #expect(pieces.joined() == text)
        #expect(pieces[1].unicodeScalars.first == "e")
    }

    /// A line break in the second half of a piece is where it is cut (and is not sent); else a space.
    @Test func prefersLineBreaksThenSpaces() {
        let lines = MessageSplitter.split("aaaa bbbb\ncccc dddd", limit: 12)
        #expect(lines == ["aaaa bbbb", "cccc dddd"])
        let words = MessageSplitter.split("aaaa bbbb cccc dddd", limit: 12)
        #expect(words == ["aaaa bbbb ", "cccc dddd"])
        #expect(words.joined() == "aaaa bbbb cccc dddd")
    }

    /// One character larger than the limit (a letter under hundreds of marks) is cut between
    /// scalars instead of looping or giving one scalar per message.
    @Test func hugeClusterIsCutBetweenScalars() {
        let zalgo = "z" + String(repeating: "\u{301}", count: 3000)
        let pieces = MessageSplitter.split(zalgo)
        #expect(pieces.count == 2)
        #expect(pieces.allSatisfy { $0.utf8.count <= 4096 })
        #expect(pieces.map { $0.unicodeScalars.count }.reduce(0, +) == 3001)
    }
}
