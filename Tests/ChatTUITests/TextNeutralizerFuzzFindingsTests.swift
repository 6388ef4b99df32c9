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

/// Default-ignorable scalars draw nothing, so they could hide in a message or make a blank nick.
struct TextNeutralizerDefaultIgnorableTests {
    let neutralizer = TextNeutralizer.singleLine

    /// The unassigned U+E0000 and U+E000C (the fuzzer's finds) and the unassigned U+2065 and
    /// U+FFF0 show as code points, like the format characters they are reserved for.
    @Test func unassignedDefaultIgnorablesShowAsCodePoints() {
        #expect(neutralizer.neutralize("\u{E0000}") == "<U+E0000>")
        #expect(neutralizer.neutralize("a\u{E000C}b") == "a<U+E000C>b")
        #expect(neutralizer.neutralize("\u{2065}\u{FFF0}") == "<U+2065><U+FFF0>")
    }

    /// All four Hangul fillers, not only U+3164 and U+FFA0, show as code points; a vowel after a
    /// shown initial filler then has no syllable and shows as its code point too.
    @Test func everyHangulFillerShowsAsCodePoint() {
        #expect(neutralizer.neutralize("\u{115F}") == "<U+115F>")
        #expect(neutralizer.neutralize("\u{1160}") == "<U+1160>")
        #expect(neutralizer.neutralize("\u{115F}\u{1161}") == "<U+115F><U+1161>")
        #expect(neutralizer.neutralize("\u{3164}\u{FFA0}") == "<U+3164><U+FFA0>")
    }

    /// Default-ignorable marks stay: variation selectors pick emoji or text presentation, and
    /// the combining grapheme joiner sits on its base.
    @Test func defaultIgnorableMarksAreKept() {
        #expect(neutralizer.neutralize("\u{2764}\u{FE0F}") == "\u{2764}\u{FE0F}")
        #expect(neutralizer.neutralize("a\u{34F}b") == "a\u{34F}b")
    }
}

/// What the cut leaves of a cluster could join the next cluster, so clusters cut one after another
/// made one cluster of any length, which the cut exists to prevent.
struct TextNeutralizerCutTests {
    /// The fuzzer's find: four Hangul initials left of `ᄑᄑᄑᄑ켑` joined the initials after them.
    @Test func cutHangulSyllableStaysApartFromTheNext() {
        let neutralizer = TextNeutralizer(maximumScalarsPerCharacter: 4)
        let result = neutralizer.neutralize("\u{1111}\u{1111}\u{1111}\u{1111}\u{CB11}\u{1111}\u{1100}")
        #expect(result == "\u{1111}\u{1111}\u{1111}\u{1111}\u{200C}\u{1111}\u{1100}")
        #expect(result.map(\.unicodeScalars.count) == [5, 2])
    }

    /// ZWJ emoji sequences cut after a ZWJ would chain into one cluster.
    @Test func cutEmojiSequencesStayApart() {
        let family = "\u{1F468}\u{200D}\u{1F469}"
        let result = TextNeutralizer(maximumScalarsPerCharacter: 2).neutralize(family + family + family)
        #expect(result.count == 3)
        #expect(result.allSatisfy { $0.unicodeScalars.count <= 3 })
    }

    /// A cut that leaves nothing able to join adds nothing: a zalgo stack is cut as before.
    @Test func cutMarksNeedNoSeparator() {
        let zalgo = "z" + String(repeating: "\u{301}", count: 50)
        #expect(TextNeutralizer(maximumScalarsPerCharacter: 8).neutralize(zalgo + zalgo).unicodeScalars.count == 16)
    }
}
