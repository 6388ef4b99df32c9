/// The full-screen client's keys as `/help` lists them (and as the README and chat-client(1) must,
/// which a test checks): what to press, what it does.
public enum KeyHelp {
    public struct Binding: Sendable {
        public let keys: String
        public let meaning: String
    }

    public static let bindings: [Binding] = [
        Binding(keys: "Enter", meaning: "send to the room or conversation shown (and back to the newest line)"),
        Binding(keys: "Left/Right, Home/End, Ctrl-A/Ctrl-E, Ctrl-B/Ctrl-F", meaning: "move in the input line"),
        Binding(keys: "Backspace/Delete, Ctrl-K, Ctrl-U, Ctrl-W, Ctrl-Y", meaning: "delete; cut to the end, to the start, the word before; paste what was cut"),
        Binding(keys: "Alt-B/Alt-F, Ctrl-Left/Ctrl-Right", meaning: "move a word back / forward"),
        Binding(keys: "Alt-D, Alt-Backspace", meaning: "cut the word after / before the cursor"),
        Binding(keys: "Ctrl-T", meaning: "swap the two characters around the cursor"),
        Binding(keys: "Up/Down", meaning: "the input history, kept across restarts (each room and conversation keeps its own unsent draft)"),
        Binding(keys: "Tab", meaning: "complete a nick, a command, a room (#room, /join) or a path (/send, /get; again: the next match)"),
        Binding(keys: "PgUp/PgDn", meaning: "scroll the room (past the start: older history)"),
        Binding(keys: "End", meaning: "with the cursor at the end of the input: back to the newest line"),
        Binding(keys: "Alt-1..9, Alt-0", meaning: "room 1 to 9, room 10 (/buffer for any)"),
        Binding(keys: "Ctrl-N/Ctrl-P", meaning: "the next / previous room"),
        Binding(keys: "Alt-Tab, Alt-A", meaning: "the next room with highlights, else with unread messages"),
        Binding(keys: "Ctrl-R", meaning: "search again (the word of the last /search)"),
        Binding(keys: "Ctrl-L", meaning: "redraw the screen"),
        Binding(keys: "Ctrl-Z", meaning: "suspend (fg brings the client back)"),
        Binding(keys: "Ctrl-C, Ctrl-D on an empty line", meaning: "quit (waits for undelivered messages; again: at once)"),
    ]

    /// One line a key, for `/help`.
    public static var lines: [String] { bindings.map { "\($0.keys): \($0.meaning)" } }
}
