/// Scenario 11's escape-injection corpus (issue 6): what a hostile peer or a hostile server could
/// put into a chat message to take over a terminal. Each entry is wrapped in markers (`C07 … E07`)
/// so a test can find it on the screen.
enum EscapeCorpus {
    struct Entry: Sendable {
        let number: Int
        let name: String
        let payload: String
        /// Whether it holds C0, ESC, DEL or C1 characters, which the server strips from the text of
        /// a `msg`: only a hostile server or database delivers them raw.
        var hasControls: Bool {
            payload.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        }
        var startMarker: String { "C" + (number < 10 ? "0" : "") + String(number) }
        var endMarker: String { "E" + (number < 10 ? "0" : "") + String(number) }
        var text: String { "\(startMarker) \(payload) \(endMarker)" }
    }

    static let esc = "\u{1B}"

    static let entries: [Entry] = [
        ("erase display, cursor home", "\(esc)[2J\(esc)[H\(esc)[3J"),
        ("absolute and relative cursor moves", "\(esc)[10;10H\(esc)[5A\(esc)[3C\(esc)[2B\(esc)[4D\(esc)[1G\(esc)[3d"),
        ("save and restore cursor", "\(esc)[s\(esc)[20;1Hhere\(esc)[u \(esc)7\(esc)[1;1H\(esc)8"),
        ("erase and insert lines and characters", "\(esc)[K\(esc)[2K\(esc)[5L\(esc)[5M\(esc)[3P\(esc)[4@\(esc)[9X"),
        ("scroll region and scrolling", "\(esc)[1;3r\(esc)[5S\(esc)[5T\(esc)D\(esc)M\(esc)E"),
        ("SGR colours and attributes", "\(esc)[31;1;4;5;7mRED\(esc)[38;2;255;0;0m\(esc)[48;5;196mBG"),
        ("SGR conceal", "\(esc)[8mhidden\(esc)[28m"),
        ("OSC 0 title ended by BEL", "\(esc)]0;pwned\u{07}"),
        ("OSC 2 title ended by ST", "\(esc)]2;pwned\(esc)\\"),
        ("OSC 52 clipboard write", "\(esc)]52;c;cm0gLXJmIH4K\u{07}"),
        ("OSC 8 hyperlink", "\(esc)]8;;http://evil.example/\(esc)\\click\(esc)]8;;\(esc)\\"),
        ("OSC 4 palette change", "\(esc)]4;1;rgb:00/ff/00\u{07}\(esc)]10;#ff0000\u{07}"),
        ("DEC alternate screen off", "\(esc)[?1049l\(esc)[?1047l\(esc)[?47l"),
        ("DEC mouse reporting on", "\(esc)[?1000h\(esc)[?1002h\(esc)[?1003h\(esc)[?1006h\(esc)[?1015h\(esc)[?1005h"),
        ("DEC cursor hidden, autowrap off, origin mode", "\(esc)[?25l\(esc)[?7l\(esc)[?6h\(esc)[4h"),
        ("keypad modes and bracketed paste off", "\(esc)=\(esc)[?1h\(esc)[?2004l"),
        ("full reset", "\(esc)c"),
        ("charset switch to DEC line drawing", "\(esc)(0lqqk\(esc)(B \u{0E}shifted\u{0F}"),
        ("DCS, APC, PM and SOS strings", "\(esc)Pq#0;2;0;0;0\(esc)\\ \(esc)_apc\(esc)\\ \(esc)^pm\(esc)\\ \(esc)Xsos\(esc)\\"),
        ("tmux passthrough", "\(esc)Ptmux;\(esc)\(esc)]0;pwned\u{07}\(esc)\\"),
        ("C1 CSI", "\u{9B}2J\u{9B}31mC1RED\u{9B}?1049l"),
        ("C1 OSC, DCS, ST and NEL", "\u{9D}0;pwned\u{9C} \u{90}q\u{9C} \u{85}next \u{84}\u{8D}"),
        ("C0 controls", "\u{08}\u{08}\u{08}back\rreturn\u{0B}vt\u{0C}ff\u{07}bell\u{7F}del\u{00}nul\u{1A}sub"),
        ("bidi overrides and isolates", "\u{202E}reversed\u{202C} \u{202D}\u{202A}\u{202B} \u{2066}iso\u{2069} \u{2067}\u{2068} \u{200F}\u{200E}\u{061C}"),
        ("invisible and filler characters", "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}\u{3164}\u{115F}\u{180E}"),
        ("line and paragraph separators", "one\u{2028}two\u{2029}three"),
        ("combining mark flood", "Z" + String(repeating: "\u{0301}\u{0336}", count: 100)),
        ("wide characters and emoji", "世界 😀 🇫🇷 👩‍👩‍👧"),
        ("tab and line feed", "a\tb\nsecond line"),
    ].enumerated().map { Entry(number: $0.offset + 1, name: $0.element.0, payload: $0.element.1) }

    /// `text` as a JSON string body with every non-ASCII or control scalar as `\uXXXX`, so a
    /// `send-raw` line carries exactly these characters whatever the script's line handling.
    static func jsonEscaped(_ text: String) -> String {
        var out = ""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    /// The entry's bytes as SQLite blob hex, for a database written the way no server would.
    static func sqliteHex(_ text: String) -> String {
        text.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
