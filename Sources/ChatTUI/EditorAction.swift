/// What ``LineEditor/handle(_:candidates:)`` did with a key.
public enum EditorAction: Sendable, Equatable {
    /// The key changed the text, the cursor or the history position.
    case edited
    /// Enter on a non-empty line: send this line (the editor is now empty).
    case submitted(String)
    /// Not an editor key (PgUp, Esc, Alt-digit, Ctrl-C, ...): the caller handles it.
    case ignored
}
