import Testing

@testable import ChatTUI

/// The status bar's transfer: a bar drawn an eighth of a cell at a time, with the sizes, rate and
/// time left when they fit, ever shorter forms on narrower terminals.
struct TransferProgressTests {
    static let notes = TransferProgress(isUpload: true, name: "notes.txt", fraction: 0.45, amounts: "4.5 MiB/10.0 MiB",
                                        rate: "8.1 MiB/s", timeLeft: "1 s left")

    /// Empty, full, and in between: full blocks, one partial block, blanks; always `cells` wide.
    @Test func barsFillAnEighthAtATime() {
        #expect(TransferProgress.bar(0, cells: 10) == "[          ]")
        #expect(TransferProgress.bar(1, cells: 10) == "[██████████]")
        #expect(TransferProgress.bar(0.45, cells: 10) == "[████▌     ]")
        #expect(TransferProgress.bar(0.0125, cells: 10) == "[▏         ]")
        #expect(TransferProgress.bar(0.999, cells: 6) == "[█████▉]")
        #expect(TransferProgress.bar(-1, cells: 6) == "[      ]" && TransferProgress.bar(7, cells: 6) == "[██████]")
        for step in 0...100 { #expect(TransferProgress.bar(Double(step) / 100, cells: 10).count == 12) }
    }

    /// Wide: name, bar, percent, sizes, rate and time left, then the connection.
    @Test func wideBarShowsEverything() {
        var model = sampleModel()
        model.transfer = Self.notes
        let (_, screen, _) = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 200, rows: 10))
        #expect(screen.textLines[0].hasSuffix("↑ notes.txt [████▌     ] 45% 4.5 MiB/10.0 MiB 8.1 MiB/s 1 s left | connected | rtt 23 ms"))
        #expect(screen.textLines[0].hasPrefix(" qchat.example | alice | [1:lobby]"))
    }

    /// At 80 columns the bar with name and percent (the transfer takes half the bar at most); at
    /// 40 the bar and the percent, the room still on the left; at 24 the percent alone; never
    /// wider than the terminal.
    @Test func narrowBarsKeepTheBar() {
        var model = sampleModel()
        model.transfer = Self.notes
        let eighty = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 80, rows: 10)).screen.textLines[0]
        #expect(eighty == " qchat.example | alice | [1:lobby] 2:dev(3)        ↑ notes.txt [████▌     ] 45%")
        let forty = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 40, rows: 10)).screen.textLines[0]
        #expect(forty.hasSuffix("↑ [████▌     ] 45%") && forty.contains("[1:lobby]"))
        let narrow = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 24, rows: 10)).screen.textLines[0]
        #expect(narrow == " [1:lobby] 2(3)   ↑ 45%")
        for columns in 10...200 {
            let (_, screen, _) = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: columns, rows: 6))
            #expect(screen.violations.isEmpty && screen.textLines[0].count <= columns)
        }
    }

    /// While the file is hashed: no bar yet; a long name is cut; a name from the network is drawn
    /// neutralised, never interpreted.
    @Test func hashingAndHostileNames() {
        var model = sampleModel()
        model.transfer = TransferProgress(isUpload: true, name: "a-rather-long-file-name.tar.gz", fraction: nil, amounts: "0 B/1.0 GiB")
        let hashing = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 60, rows: 10)).screen.textLines[0]
        #expect(hashing == " alice | [1:lobby] 2:dev(3)         ↑ a-rather-lo… hashing…")
        model.transfer = TransferProgress(isUpload: false, name: "evil\u{1B}]0;pwned\u{07}.bin", fraction: 0.5, amounts: "1 B/2 B")
        let (_, screen, _) = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 200, rows: 10))
        #expect(screen.textLines[0].contains("↓ evil^[]0;pwned^G.bin [█████     ] 50% 1 B/2 B"))
        #expect(screen.violations.isEmpty)
    }
}
