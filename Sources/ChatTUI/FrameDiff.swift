/// The bytes that turn a terminal showing `previous` into one showing `next`: only changed
/// cells are written, cursor moves (CUP) only where the write position jumps, SGR only where the
/// style changes. Without a previous frame, or after a resize, the screen is cleared (ED 2) and
/// drawn whole. Output starts from no assumption about the terminal's style and ends with the
/// style reset, the cursor placed and shown, or hidden.
///
/// The only sequences it emits: CUP, SGR (0, 1, 7, 30-37, 90-97, 38;5;n), ED 2, the cursor
/// show/hide modes, and OSC 8 hyperlinks around the cells of a web address (closed before the
/// output ends).
public enum FrameDiff {
    public static func bytes(from previous: Frame?, to next: Frame) -> [UInt8] {
        var output = TerminalOutput(columns: next.columns)
        let comparable = previous.flatMap { $0.size == next.size ? $0 : nil }
        if comparable == nil {
            output.append(TerminalControl.resetStyle)
            output.append(TerminalControl.clearScreen)
        }
        for row in 0..<next.rows {
            for column in 0..<next.columns {
                let cell = next[row, column]
                guard !cell.isContinuation else { continue }
                if let comparable {
                    // A continuation cell cannot change unless its glyph's cell does, so checking
                    // the glyph's own cell is enough.
                    guard comparable[row, column] != cell else { continue }
                } else if cell == .blank {
                    continue
                }
                output.write(cell, at: CursorPosition(row: row, column: column))
            }
        }
        output.resetStyleIfNeeded()
        placeCursor(previous: comparable, next: next, output: &output)
        return output.bytes
    }

    static func placeCursor(previous: Frame?, next: Frame, output: inout TerminalOutput) {
        let wasVisible = previous.map { $0.cursor != nil }
        if let position = next.cursor, next.contains(row: position.row, column: position.column) {
            let moved = previous?.cursor != position
            if moved || !output.bytes.isEmpty {
                output.moveCursor(to: position)
            }
            if wasVisible != true { output.append(TerminalControl.showCursor) }
        } else if wasVisible != false {
            output.append(TerminalControl.hideCursor)
        }
    }
}
