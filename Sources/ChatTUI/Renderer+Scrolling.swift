extension Renderer {
    /// PgUp: scrolls the current room one pane height minus one row towards older lines.
    /// `.reachedOldest` means the top of the room is shown: request older history.
    public func pageUp(_ model: inout ChatViewModel, size: TerminalSize) -> ScrollOutcome {
        let layout = layout(for: size, model: model)
        let width = layout.messageWidth
        let paneRows = layout.messageRows.count
        guard width > 0, paneRows > 0 else { return .reachedOldest }
        let formatter = formatter
        return model.scrollUp(rows: max(1, paneRows - 1), paneRows: paneRows) {
            formatter.rowCount(for: $0, width: width)
        }
    }

    /// PgDn: scrolls one pane height minus one row towards newer lines.
    public func pageDown(_ model: inout ChatViewModel, size: TerminalSize) {
        let layout = layout(for: size, model: model)
        let width = layout.messageWidth
        guard width > 0 else { return }
        let formatter = formatter
        model.scrollDown(rows: max(1, layout.messageRows.count - 1)) {
            formatter.rowCount(for: $0, width: width)
        }
    }
}
