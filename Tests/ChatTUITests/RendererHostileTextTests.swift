import Testing

@testable import ChatTUI

struct RendererHostileTextTests {
    /// A model where every string from the network is hostile: server name, nicks, rooms,
    /// messages, members, typists and the disconnect reason.
    func hostileModel(_ hostile: String) -> ChatViewModel {
        var model = ChatViewModel(serverName: hostile, nick: "me")
        model.connection = .disconnected(reason: hostile)
        model.openRoom(hostile)
        model.openRoom("lobby")
        for kind in ChatLine.Kind.allCases {
            model.append(ChatLine(timestamp: sampleTime, nick: hostile, text: hostile, kind: kind), to: hostile)
        }
        model.setMembers([hostile, "ok"], in: hostile)
        model.setTyping(hostile, in: hostile, until: sampleTime + 1000)
        return model
    }

    /// No cell of a rendered frame holds a control, C1, ESC, format or separator character.
    @Test(arguments: hostileCorpus)
    func framesHoldNoUnsafeCell(hostile: String) {
        for size in [TerminalSize(columns: 80, rows: 24), TerminalSize(columns: 40, rows: 10), TerminalSize(columns: 10, rows: 3)] {
            let frame = Renderer(options: RenderOptions(now: sampleTime)).render(hostileModel(hostile), editor: makeEditor(hostile), size: size)
            for cell in frame.cells {
                #expect(!cell.character.unicodeScalars.contains { isUnsafe($0) }, "\(cell.character.unicodeScalars.map(\.value))")
            }
        }
    }

    /// Writer output for hostile frames holds only the writer's own sequences and reproduces the frame.
    @Test(arguments: hostileCorpus)
    func writerOutputHoldsOnlyItsOwnSequences(hostile: String) {
        let (frame, screen, bytes) = renderOnScreen(hostileModel(hostile), editor: makeEditor(hostile),
                                                    size: TerminalSize(columns: 80, rows: 24))
        #expect(escapeSequences(in: bytes).allSatisfy(isWriterSequence))
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x1B })
        #expect(!bytes.contains(0x7F))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { (0x80...0x9F).contains($0.value) })
        #expect(screen.violations.isEmpty, "\(screen.violations)")
        #expect(screen.frame == frame)
        #expect(!screen.isAlternateScreenActive)
        #expect(screen.isCursorVisible)
    }

    /// The visible text of a hostile message shows its escape as `^[`.
    @Test func escapeIsShownAsText() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "eve", text: "\u{1B}]0;owned\u{07}\u{1B}[2J", kind: .message), to: "lobby")
        let (_, screen, _) = renderOnScreen(model, editor: LineEditor(), size: TerminalSize(columns: 80, rows: 24))
        #expect(text(of: screen.frame, row: 21, columns: 0..<63) == "12:34 <eve> ^[]0;owned^G^[[2J")
    }
}
