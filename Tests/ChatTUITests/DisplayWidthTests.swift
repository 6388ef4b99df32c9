import Testing

@testable import ChatTUI

struct DisplayWidthTests {
    /// Clusters and their expected terminal widths.
    static let samples: [(String, Int)] = [
        ("a", 1), ("~", 1), ("é", 1), ("e\u{301}", 1), ("\u{FFFD}", 1), ("…", 1), ("ｱ", 1),
        ("中", 2), ("語", 2), ("한", 2), ("\u{1100}\u{1161}\u{11A8}", 2), ("Ａ", 2), ("。", 2), ("\u{3000}", 2),
        ("😀", 2), ("👍🏽", 2), ("👨‍👩‍👧‍👦", 2), ("🇫🇷", 2), ("❤️", 2), ("❤", 1), ("1️⃣", 2), ("⌚", 2),
        ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", 2), ("🫠", 2), ("\u{20000}", 2),
        ("\u{301}", 0), ("\u{200D}", 0), ("\u{200B}", 0), ("\u{1B}", 0), ("\u{7F}", 0), ("\u{9B}", 0),
    ]

    /// Each sample cluster has its expected width.
    @Test(arguments: samples)
    func clusterWidth(text: String, width: Int) {
        #expect(text.count == 1)
        #expect(DisplayWidth.columns(of: Character(text)) == width)
    }

    /// A string's width is the sum of its clusters' widths.
    @Test func stringWidthSumsClusters() {
        #expect(DisplayWidth.columns(of: "a中😀e\u{301}🇯🇵") == 1 + 2 + 2 + 1 + 2)
        #expect(DisplayWidth.columns(of: "") == 0)
    }

    /// The wide table is sorted and disjoint, as the binary search needs.
    @Test func wideRangesAreSortedAndDisjoint() {
        let ranges = DisplayWidth.wideRanges
        for index in ranges.indices {
            #expect(ranges[index].first <= ranges[index].last)
            if index > 0 { #expect(ranges[index - 1].last < ranges[index].first) }
        }
    }

    /// Range edges are found: the first and last scalar of a range are wide, their neighbours not.
    @Test func wideRangeEdges() {
        #expect(DisplayWidth.isWide(0x1100))
        #expect(DisplayWidth.isWide(0x115F))
        #expect(!DisplayWidth.isWide(0x10FF))
        #expect(!DisplayWidth.isWide(0x1160))
        #expect(DisplayWidth.isWide(0x3FFFD))
        #expect(!DisplayWidth.isWide(0x40000))
    }
}
