import Testing

@testable import ChatTUI

/// Inputs the fuzzer found (`Fuzz/regressions/text-neutralizer`), kept here by content so that
/// `swift test` guards them too.
struct TextNeutralizerFuzzFindingsTests {
    let neutralizer = TextNeutralizer.multiLine

    /// A Hangul vowel or final consonant outside a syllable joins no dotted circle and was left as
    /// a cluster without width; it shows as its code point instead.
    @Test func hangulVowelOrFinalWithoutSyllableShowsAsCodePoint() {
        #expect(neutralizer.neutralize("\u{1161}") == "<U+1161>")
        #expect(neutralizer.neutralize("a\u{11A8}") == "a<U+11A8>")
        #expect(neutralizer.neutralize("e\u{301} \u{FFFD}\u{1161}") == "e\u{301} \u{FFFD}<U+1161>")
    }

    /// A vowel that joined a prepended format character loses its syllable when that character
    /// becomes a placeholder.
    @Test func hangulVowelAfterPlaceholderShowsAsCodePoint() {
        #expect(neutralizer.neutralize("\u{600}\u{1161}") == "<U+0600><U+1161>")
    }

    /// Whole syllables, and marks on a dotted circle, are unchanged by the fix.
    @Test func hangulSyllablesAndBaselessMarksAreKept() {
        #expect(neutralizer.neutralize("\u{1100}\u{1161}\u{11A8}") == "\u{1100}\u{1161}\u{11A8}")
        #expect(neutralizer.neutralize("\u{301}") == "\u{25CC}\u{301}")
    }

    /// Every cluster of the fuzzer's inputs has a width once neutralised.
    @Test(arguments: ["\u{1161}", "a\u{11A8}", "\u{600}\u{1161}", "\u{1161}\u{11A8}\u{301}"])
    func fuzzFindingsLeaveNoClusterWithoutWidth(text: String) {
        for character in neutralizer.neutralize(text) {
            #expect(DisplayWidth.columns(of: character) > 0, "\(character.unicodeScalars.map(\.value))")
        }
    }
}
