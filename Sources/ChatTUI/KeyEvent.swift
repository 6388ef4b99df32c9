/// One key press (or one paste) decoded from terminal input.
public enum KeyEvent: Sendable, Hashable {
    /// Printable text typed: one or more clusters, never a control.
    case text(String)
    /// The content of a bracketed paste, exactly as sent (it may hold newlines and escape
    /// bytes, which are data here, never keys).
    case paste(String)
    case enter
    case tab
    /// Shift-Tab (CSI Z).
    case backTab
    /// 0x7F or 0x08 (Ctrl-H).
    case backspace
    /// ESC alone, known only after ``KeyDecoder/flushPending()``.
    case escape
    case up, down, left, right
    /// Ctrl-Left/Ctrl-Right (and Alt-Left/Alt-Right): a word at a time.
    case wordLeft, wordRight
    /// Alt-Backspace (ESC then DEL or BS).
    case altBackspace
    case home, end, insert, delete, pageUp, pageDown
    /// Ctrl plus a letter (lower case, `a`...`z`) or `@`, `\`, `]`, `^`, `_`. Ctrl-H, Ctrl-I,
    /// Ctrl-J and Ctrl-M arrive as ``backspace``, ``tab`` and ``enter`` instead.
    case control(Character)
    /// Alt (Meta) plus a printable ASCII character (or Tab), sent by terminals as ESC then the
    /// character.
    case alt(Character)
}
