import Testing

@testable import ChatTUI

struct TextNeutralizerTests {
    let neutralizer = TextNeutralizer.multiLine

    /// ESC becomes `^[`, so a CSI sequence shows as text and the cursor stays put.
    @Test func escapeShowsInCaretNotation() {
        #expect(neutralizer.neutralize("\u{1B}[2J\u{1B}[10;20H") == "^[[2J^[[10;20H")
    }

    /// Other C0 controls and DEL use caret notation: NUL `^@`, BEL `^G`, BS `^H`, CR `^M`, DEL `^?`.
    @Test func c0ControlsAndDeleteUseCaretNotation() {
        #expect(neutralizer.neutralize("\u{00}\u{07}\u{08}\r\u{1F}\u{7F}") == "^@^G^H^M^_^?")
    }

    /// C1 controls, the 8-bit CSI U+009B included, show as code points.
    @Test func c1ControlsShowAsCodePoints() {
        #expect(neutralizer.neutralize("\u{9B}31m\u{85}") == "<U+009B>31m<U+0085>")
    }

    /// Bidi overrides, embeddings and isolates show as code points, so text cannot be reordered.
    @Test func bidiControlsShowAsCodePoints() {
        #expect(neutralizer.neutralize("\u{202E}exe.txt\u{202C}") == "<U+202E>exe.txt<U+202C>")
        #expect(neutralizer.neutralize("\u{2066}\u{2069}") == "<U+2066><U+2069>")
    }

    /// Zero-width space, word joiner, BOM, LRM and line separators become visible.
    @Test func invisibleFormatCharactersBecomeVisible() {
        #expect(neutralizer.neutralize("a\u{200B}b\u{2060}\u{FEFF}\u{200E}\u{2028}")
                    == "a<U+200B>b<U+2060><U+FEFF><U+200E><U+2028>")
    }

    /// The Hangul fillers often used for blank-looking nicks become visible.
    @Test func hangulFillersBecomeVisible() {
        #expect(TextNeutralizer.singleLine.neutralize("\u{3164}") == "<U+3164>")
        // The choseong and jungseong fillers, alone or as the start of a cluster.
        #expect(TextNeutralizer.singleLine.neutralize("\u{115F}\u{1160}") == "<U+115F><U+1160>")
        #expect(TextNeutralizer.singleLine.neutralize("a\u{115F}b") == "a<U+115F>b")
    }

    /// TAB becomes the configured number of spaces.
    @Test func tabBecomesSpaces() {
        #expect(neutralizer.neutralize("a\tb") == "a    b")
        #expect(TextNeutralizer(tabWidth: 1).neutralize("a\tb") == "a b")
    }

    /// LF is a line break in message bodies and a visible ↵ in single-line places.
    @Test func lineFeedFollowsPolicy() {
        #expect(TextNeutralizer.multiLine.neutralize("a\nb") == "a\nb")
        #expect(TextNeutralizer.singleLine.neutralize("a\nb") == "a\u{21B5}b")
    }

    /// CR LF (one Character in Swift) shows its CR and keeps the line break.
    @Test func carriageReturnLineFeedShowsTheReturn() {
        #expect(neutralizer.neutralize("a\r\nb") == "a^M\nb")
    }

    /// Ordinary text of every script and emoji passes unchanged.
    @Test(arguments: ["hello, world", "日本語テキスト", "한국어", "café naïve", "e\u{301}", "👨‍👩‍👧‍👦", "🇫🇷🇩🇪",
                      "👍🏽", "❤️", "1️⃣", "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "می‌خواهم", "\u{FFFD}", "Ａｂｃ"])
    func ordinaryTextIsUnchanged(text: String) {
        #expect(neutralizer.neutralize(text) == text)
    }

    /// A combining mark with no base is drawn on a dotted circle instead of joining a neighbour.
    @Test func baselessMarkGetsADottedCircle() {
        #expect(neutralizer.neutralize("\u{301}x") == "\u{25CC}\u{301}x")
        #expect(neutralizer.neutralize("\u{1B}\u{301}") == "^[\u{25CC}\u{301}")
    }

    /// Tag characters outside an emoji flag sequence are shown, not hidden.
    @Test func strayTagCharactersBecomeVisible() {
        #expect(neutralizer.neutralize("a\u{E0041}") == "a<U+E0041>")
    }

    /// A zalgo stack is cut to the configured number of scalars per cluster.
    @Test func longClustersAreCut() {
        let zalgo = "z" + String(repeating: "\u{301}", count: 500)
        let result = TextNeutralizer(maximumScalarsPerCharacter: 8).neutralize(zalgo)
        #expect(result.unicodeScalars.count == 8)
        #expect(result.count == 1)
    }

    /// No hostile string keeps a control, C1, format or separator character, and none gains an ESC.
    @Test(arguments: hostileCorpus)
    func hostileTextKeepsNothingUnsafe(text: String) {
        let multiLine = TextNeutralizer.multiLine.neutralize(text)
        let singleLine = TextNeutralizer.singleLine.neutralize(text)
        #expect(!multiLine.unicodeScalars.contains { isUnsafe($0, allowingLineFeed: true) })
        #expect(!singleLine.unicodeScalars.contains { isUnsafe($0) })
    }

    /// Every cluster of neutralised text has a width, so nothing fuses with a neighbouring cell.
    @Test(arguments: hostileCorpus)
    func neutralisedClustersAllHaveWidth(text: String) {
        for character in TextNeutralizer.singleLine.neutralize(text) {
            #expect(DisplayWidth.columns(of: character) > 0, "\(character.unicodeScalars.map(\.value))")
        }
    }
}
