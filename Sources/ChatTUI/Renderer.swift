/// Turns (state, editor, terminal size) into a frame. Pure: the same inputs give the same frame.
///
/// Layout, top to bottom: status bar, message pane (with the member list at its right on wide
/// terminals), typing line, input line. Everything drawn from the network goes through
/// ``TextNeutralizer`` here, in one place, so no cell can hold a control or escape character.
public struct Renderer: Sendable {
    public var options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    var formatter: MessageFormatter {
        MessageFormatter(colors: options.colors, utcOffsetSeconds: options.utcOffsetSeconds, timestamp: options.timestamp,
                         numbers: options.messageNumbers)
    }

    /// The layout for a model shown at a size: the current room's topic takes a row when it has one.
    public func layout(for size: TerminalSize, model: ChatViewModel) -> ScreenLayout {
        ScreenLayout(size: size, memberListMinimumColumns: options.memberListMinimumColumns, showsTopic: model.currentRoom?.topic != nil,
                     showsMembers: model.showsMemberList && (model.currentRoom.map { !$0.isQuery && !$0.isView } ?? true))
    }

    public func render(_ model: ChatViewModel, editor: LineEditor, size: TerminalSize) -> Frame {
        var frame = Frame(size: size)
        guard size.columns > 0, size.rows > 0 else { return frame }
        let layout = layout(for: size, model: model)
        if let row = layout.statusRow {
            drawStatusBar(model, row: row, into: &frame)
        }
        if let row = layout.topicRow, let topic = model.currentRoom?.topic {
            drawTopic(topic, row: row, width: layout.messageWidth, into: &frame)
        }
        drawMessagePane(model, layout: layout, into: &frame)
        if let columns = layout.memberColumns {
            drawMemberList(model, rows: layout.memberRows, columns: columns, into: &frame)
        }
        if let row = layout.typingRow {
            drawTypingLine(model, row: row, width: layout.messageWidth, into: &frame)
        }
        if let row = layout.inputRow {
            drawInputLine(model, editor: editor, row: row, into: &frame)
        }
        return frame
    }

    func style(foreground: UInt8? = nil, bold: Bool = false, reverse: Bool = false) -> CellStyle {
        CellStyle(foreground: options.colors ? foreground : nil, bold: bold, reverse: reverse)
    }
}
