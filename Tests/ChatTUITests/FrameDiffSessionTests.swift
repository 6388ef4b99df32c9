import Testing

@testable import ChatTUI

/// Applying diffs of successive rendered frames to one virtual terminal must give the same
/// screen as rendering the last state in full.
struct FrameDiffSessionTests {
    /// Draws each state as the client's loop would (diff against the previous frame) and checks
    /// the screen after every step.
    func drive(_ steps: [(ChatViewModel, LineEditor, TerminalSize)], options: RenderOptions = RenderOptions(now: sampleTime)) {
        let renderer = Renderer(options: options)
        var screen = VirtualScreen(size: steps[0].2)
        screen.apply(TerminalControl.setUp)
        var previous: Frame?
        for (index, (model, editor, size)) in steps.enumerated() {
            if size != previous?.size { screen.resize(to: size) }
            let next = renderer.render(model, editor: editor, size: size)
            screen.apply(FrameDiff.bytes(from: previous, to: next))
            #expect(screen.frame == next, "step \(index)")
            #expect(screen.frame == renderOnScreen(model, editor: editor, size: size, options: options).screen.frame, "step \(index)")
            previous = next
        }
        #expect(screen.violations.isEmpty, "\(screen.violations)")
    }

    /// Typing, messages arriving, switching rooms, typists expiring and scrolling back.
    @Test func chatSession() {
        let size = TerminalSize(columns: 80, rows: 24)
        var model = sampleModel()
        var editor = LineEditor()
        var steps: [(ChatViewModel, LineEditor, TerminalSize)] = [(model, editor, size)]
        for character in "héllo 中文 👨‍👩‍👧!" {
            editor.insert(String(character))
            steps.append((model, editor, size))
        }
        if let line = editor.submit() {
            model.append(ChatLine(timestamp: sampleTime, nick: "alice", text: line, kind: .ownPending, id: "x"), to: "lobby")
        }
        steps.append((model, editor, size))
        model.updateOwnMessage(id: "x", kind: .ownConfirmed)
        model.stopTyping("bob", in: "lobby")
        steps.append((model, editor, size))
        for index in 0..<40 {
            model.append(ChatLine(timestamp: sampleTime + Int64(index) * 60_000, nick: "n\(index % 4)",
                                  text: String(repeating: "long 長い ", count: index % 9), kind: .message), to: "lobby")
            steps.append((model, editor, size))
        }
        model.selectRoom(named: "dev")
        steps.append((model, editor, size))
        model.selectRoom(named: "lobby")
        _ = Renderer().pageUp(&model, size: size)
        steps.append((model, editor, size))
        _ = Renderer().pageUp(&model, size: size)
        steps.append((model, editor, size))
        model.scrollToNewest()
        model.connection = .reconnecting(attempt: 1)
        steps.append((model, editor, size))
        drive(steps)
    }

    /// Resizing to smaller, larger and tiny sizes redraws correctly over the old content.
    @Test func resizes() {
        var model = sampleModel()
        model.append(ChatLine(timestamp: sampleTime, nick: "李", text: "中文👨‍👩‍👧🇫🇷 wide text that wraps around", kind: .message), to: "lobby")
        let editor = makeEditor("中文 typing")
        let sizes = [(80, 24), (60, 20), (100, 30), (40, 10), (10, 3), (0, 0), (1, 1), (59, 12), (61, 12), (120, 40)]
        drive(sizes.map { (model, editor, TerminalSize(columns: $0.0, rows: $0.1)) })
    }

    /// Without colours the whole session emits no colour SGR.
    @Test func sessionWithoutColours() {
        let size = TerminalSize(columns: 70, rows: 12)
        var model = sampleModel()
        var steps = [(model, LineEditor(), size)]
        model.append(ChatLine(timestamp: sampleTime, nick: "zed", text: "colour?", kind: .message), to: "lobby")
        steps.append((model, LineEditor(), size))
        drive(steps, options: RenderOptions(colors: false, now: sampleTime))
        var screen = VirtualScreen(size: size)
        var previous: Frame?
        let renderer = Renderer(options: RenderOptions(colors: false, now: sampleTime))
        for (model, editor, size) in steps {
            let next = renderer.render(model, editor: editor, size: size)
            screen.apply(FrameDiff.bytes(from: previous, to: next))
            previous = next
        }
        #expect(screen.colourSettings == 0)
    }
}
