import Testing

@testable import ChatTUI

/// One input and the events it must decode to.
struct KeySample: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]
    let events: [KeyEvent]

    init(_ input: String, _ events: [KeyEvent]) {
        bytes = Array(input.utf8)
        self.events = events
    }

    init(bytes: [UInt8], _ events: [KeyEvent]) {
        self.bytes = bytes
        self.events = events
    }

    var testDescription: String { bytes.map { String($0, radix: 16) }.joined(separator: " ") }
}

let keySamples: [KeySample] = [
    KeySample("hello", [.text("hello")]),
    KeySample("héllo wörld €", [.text("héllo wörld €")]),
    KeySample("中文👨‍👩‍👧🇫🇷", [.text("中文👨‍👩‍👧🇫🇷")]),
    KeySample("\r", [.enter]),
    KeySample("\n", [.enter]),
    KeySample("\t", [.tab]),
    KeySample("\u{7F}", [.backspace]),
    KeySample("\u{08}", [.backspace]),
    KeySample("\u{01}\u{05}\u{0B}\u{15}\u{17}\u{03}", [.control("a"), .control("e"), .control("k"), .control("u"), .control("w"), .control("c")]),
    KeySample("\u{00}\u{1C}\u{1F}", [.control("@"), .control("\\"), .control("_")]),
    KeySample("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D", [.up, .down, .right, .left]),
    KeySample("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD", [.up, .down, .right, .left]),
    KeySample("\u{1B}[1;5C\u{1B}[1;2A", [.wordRight, .up]),
    KeySample("\u{1B}[H\u{1B}[F", [.home, .end]),
    KeySample("\u{1B}[1~\u{1B}[4~", [.home, .end]),
    KeySample("\u{1B}OH\u{1B}OF", [.home, .end]),
    KeySample("\u{1B}[7~\u{1B}[8~", [.home, .end]),
    KeySample("\u{1B}[3~\u{1B}[2~", [.delete, .insert]),
    KeySample("\u{1B}[5~\u{1B}[6~", [.pageUp, .pageDown]),
    KeySample("\u{1B}[5;5~", [.pageUp]),
    KeySample("\u{1B}[Z", [.backTab]),
    KeySample("\u{1B}OM", [.enter]),
    KeySample("\u{1B}1\u{1B}9", [.alt("1"), .alt("9")]),
    KeySample("\u{1B}b\u{1B}F", [.alt("b"), .alt("F")]),
    KeySample("a\u{1B}[Ab", [.text("a"), .up, .text("b")]),
    KeySample("\u{1B}\u{1B}[A", [.escape, .up]),
    KeySample("\u{1B}[200~pasted\u{1B}[201~", [.paste("pasted")]),
    KeySample("\u{1B}[200~\u{1B}[A\u{1B}[31mred\r\nline\t\u{03}\u{1B}[201~x", [.paste("\u{1B}[A\u{1B}[31mred\r\nline\t\u{03}"), .text("x")]),
    KeySample("\u{1B}[200~a\u{1B}[201b\u{1B}\u{1B}[201~", [.paste("a\u{1B}[201b\u{1B}")]),
    KeySample("\u{1B}[200~€中\u{1B}[201~", [.paste("€中")]),
    KeySample("\u{1B}[200~\u{1B}[201~", [.paste("")]),
    KeySample("\u{1B}[<0;10;20M\u{1B}[<0;10;20mok", [.text("ok")]),
    KeySample("\u{1B}[?1;2c\u{1B}[I\u{1B}[Oafter", [.text("after")]),
    KeySample("\u{1B}[15~\u{1B}[24~\u{1B}OP\u{1B}[[A!", [.text("!")]),
    KeySample("\u{1B}]11;rgb:0000/0000/0000\u{07}a", [.text("a")]),
    KeySample("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\b", [.text("b")]),
    KeySample("\u{1B}P1$r0m\u{1B}\\c", [.text("c")]),
    KeySample("\u{1B}[201~d", [.text("d")]),
    KeySample(bytes: [0x61, 0xFF, 0x62], [.text("a\u{FFFD}b")]),
    KeySample(bytes: [0xE2, 0x82, 0x41], [.text("\u{FFFD}A")]),
    KeySample(bytes: [0xC0, 0xAF], [.text("\u{FFFD}\u{FFFD}")]),
    KeySample(bytes: [0xED, 0xA0, 0x80], [.text("\u{FFFD}\u{FFFD}\u{FFFD}")]),
]

/// Events of consecutive `.text` merged, since splitting input may split text events.
func mergingText(_ events: [KeyEvent]) -> [KeyEvent] {
    var merged: [KeyEvent] = []
    for event in events {
        if case .text(let more) = event, case .text(let text)? = merged.last {
            merged[merged.count - 1] = .text(text + more)
        } else {
            merged.append(event)
        }
    }
    return merged
}

struct KeyDecoderTests {
    /// Each sample decodes to its events when fed in one piece.
    @Test(arguments: keySamples)
    func decodesWhole(sample: KeySample) {
        var decoder = KeyDecoder()
        #expect(decoder.feed(sample.bytes) == sample.events)
        #expect(!decoder.needsTimeoutFlush)
    }

    /// Each sample decodes to the same events when split in two at every byte boundary.
    @Test(arguments: keySamples)
    func decodesSplitAtEveryBoundary(sample: KeySample) {
        for split in 0...sample.bytes.count {
            var decoder = KeyDecoder()
            let events = decoder.feed(sample.bytes[..<split]) + decoder.feed(sample.bytes[split...])
            #expect(mergingText(events) == sample.events, "split at \(split)")
        }
    }

    /// Each sample decodes to the same events when fed one byte at a time.
    @Test(arguments: keySamples)
    func decodesByteByByte(sample: KeySample) {
        var decoder = KeyDecoder()
        var events: [KeyEvent] = []
        for byte in sample.bytes {
            events += decoder.feed([byte])
        }
        #expect(mergingText(events) == sample.events)
    }

    /// A lone ESC waits for the timeout and then is Esc.
    @Test func loneEscapeNeedsFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.needsTimeoutFlush)
        #expect(decoder.flushPending() == [.escape])
        #expect(!decoder.needsTimeoutFlush)
        #expect(decoder.feed(Array("[A".utf8)) == [.text("[A")])
    }

    /// ESC `[` and ESC `O` cut off by the timeout are Alt-`[` and Alt-`O`.
    @Test func cutOffIntroducersAreAltKeys() {
        var decoder = KeyDecoder()
        _ = decoder.feed(Array("\u{1B}[".utf8))
        #expect(decoder.flushPending() == [.alt("[")])
        _ = decoder.feed(Array("\u{1B}O".utf8))
        #expect(decoder.flushPending() == [.alt("O")])
    }

    /// A sequence cut off after its parameters is dropped by the flush, and input resumes cleanly.
    @Test func cutOffSequenceIsDropped() {
        var decoder = KeyDecoder()
        _ = decoder.feed(Array("\u{1B}[1;5".utf8))
        #expect(decoder.flushPending().isEmpty)
        #expect(decoder.feed(Array("z".utf8)) == [.text("z")])
    }

    /// A partial UTF-8 character waits across feeds, and a flush turns it into U+FFFD.
    @Test func partialUTF8WaitsAndFlushes() {
        var decoder = KeyDecoder()
        let euro = Array("€".utf8)
        #expect(decoder.feed(euro[..<2]).isEmpty)
        #expect(decoder.needsTimeoutFlush)
        #expect(decoder.feed(euro[2...]) == [.text("€")])
        _ = decoder.feed(euro[..<1])
        #expect(decoder.flushPending() == [.text("\u{FFFD}")])
    }

    /// A paste in progress is not ended by the ESC timeout: it lasts until its terminator.
    @Test func pasteSurvivesFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[200~slow \u{1B}".utf8)).isEmpty)
        #expect(decoder.isInsidePaste)
        #expect(!decoder.needsTimeoutFlush)
        #expect(decoder.flushPending().isEmpty)
        #expect(decoder.feed(Array("[201~".utf8)) == [.paste("slow ")])
        #expect(!decoder.isInsidePaste)
    }

    /// A paste larger than the limit is cut, and input after it decodes normally.
    @Test func hugePasteIsCut() {
        var decoder = KeyDecoder()
        _ = decoder.feed(Array("\u{1B}[200~".utf8))
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        for _ in 0..<(KeyDecoder.maximumPasteBytes / chunk.count + 2) {
            #expect(decoder.feed(chunk).isEmpty)
        }
        let events = decoder.feed(Array("\u{1B}[201~ok".utf8))
        #expect(events.count == 2)
        if case .paste(let content) = events.first {
            #expect(content.utf8.count == KeyDecoder.maximumPasteBytes)
        }
        #expect(events.last == .text("ok"))
    }

    /// Alt-Tab (ESC TAB) is a key of its own, not Esc then Tab.
    @Test func altTab() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}\tx".utf8)) == [.alt("\t"), .text("x")])
    }
}
