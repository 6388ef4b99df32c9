/// The few mode switches the client sends around its frames. The caller writes them to the
/// terminal; ``restore`` must be written on every exit path, signals included.
public enum TerminalControl {
    public static let enterAlternateScreen = bytes("\u{1B}[?1049h")
    public static let leaveAlternateScreen = bytes("\u{1B}[?1049l")
    public static let hideCursor = bytes("\u{1B}[?25l")
    public static let showCursor = bytes("\u{1B}[?25h")
    public static let enableBracketedPaste = bytes("\u{1B}[?2004h")
    public static let disableBracketedPaste = bytes("\u{1B}[?2004l")
    public static let resetStyle = bytes("\u{1B}[0m")
    public static let clearScreen = bytes("\u{1B}[2J")

    /// Alternate screen, bracketed paste, cursor hidden until the first frame places it.
    public static let setUp = enterAlternateScreen + enableBracketedPaste + hideCursor

    /// Undoes ``setUp``, leaving the normal screen as it was.
    public static let restore = resetStyle + disableBracketedPaste + showCursor + leaveAlternateScreen

    static func bytes(_ sequence: String) -> [UInt8] {
        Array(sequence.utf8)
    }
}
