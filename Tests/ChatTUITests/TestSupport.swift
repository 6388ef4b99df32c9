@testable import ChatTUI

/// Strings a hostile peer could send as a message, nick or room name.
let hostileCorpus: [String] = [
    "\u{1B}[2J\u{1B}[H",                          // clear screen, cursor home
    "\u{1B}[10;20Hmoved",                         // CUP
    "\u{1B}[5A\u{1B}[3C\u{1B}[s\u{1B}[u",         // relative moves, save/restore cursor
    "\u{1B}7\u{1B}8\u{1B}c",                      // DEC save/restore, full reset (RIS)
    "\u{1B}[31mred\u{1B}[0m \u{1B}[38;5;196mx\u{1B}[48;2;1;2;3mtrue",  // SGR colours
    "\u{1B}]0;owned\u{07}",                       // OSC 0 title, BEL
    "\u{1B}]2;owned\u{1B}\\",                     // OSC 2 title, ST
    "\u{1B}]52;c;aGVsbG8=\u{07}",                 // OSC 52 clipboard write
    "\u{1B}]8;;http://evil.example\u{1B}\\link\u{1B}]8;;\u{1B}\\",  // OSC 8 hyperlink
    "\u{1B}[?1000h\u{1B}[?1006h",                 // mouse reporting
    "\u{1B}[?1049h\u{1B}[?1049l",                 // alternate screen
    "\u{1B}[?25l",                                // hide cursor
    "\u{1B}P+q544e\u{1B}\\",                      // DCS request
    "\u{9B}31mC1 CSI\u{9D}0;t\u{9C}",             // 8-bit CSI, OSC, ST
    "\u{85}\u{8D}\u{90}\u{9F}",                   // other C1
    "\u{202E}txt.exe\u{202C}",                    // RLO filename trick
    "\u{202A}\u{202B}\u{202D}\u{2066}\u{2067}\u{2068}\u{2069}",  // embeddings and isolates
    "a\u{200B}b\u{2060}c\u{FEFF}d\u{200E}e\u{200F}f\u{061C}",    // invisible format characters
    "line\u{2028}sep\u{2029}para",                 // Unicode line and paragraph separators
    "\u{3164}\u{FFA0}\u{115F}\u{1160}",             // Hangul fillers used as blank names
    "bell\u{07}bs\u{08}\u{08}cr\rdel\u{7F}nul\u{00}",
    "\u{1B}[",                                    // truncated sequences
    "\u{1B}",
    "\u{1B}]0;never terminated",
    "\u{1B}[99999999999999999999999999m",
    "\u{1B}[\u{1B}[\u{1B}]\u{1B}P\u{1B}\\",        // nonsense
    "\u{301}starts with a mark",
    "\u{1B}\u{301}",                               // ESC then a mark that would join it
    "z\u{0336}\u{0336}" + String(repeating: "\u{0301}", count: 200),  // zalgo stack
    "tags\u{E0041}\u{E0042}\u{E007F}",             // tag characters outside an emoji
    "\u{FFFD}\u{FFFE}\u{FFFF}",
    "multi\nline\n\u{1B}[1mbold?",
    "tab\there",
]

/// True when a scalar could act on a terminal or hide: controls, C1, format characters except
/// ZWJ and ZWNJ, separators. `allowingLineFeed` for multi-line text.
func isUnsafe(_ scalar: Unicode.Scalar, allowingLineFeed: Bool = false) -> Bool {
    if scalar == "\n" { return !allowingLineFeed }
    if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return true }
    if scalar.value == 0x200C || scalar.value == 0x200D { return false }
    switch scalar.properties.generalCategory {
    case .format, .lineSeparator, .paragraphSeparator, .control: return true
    default: return false
    }
}

/// 12:34 UTC on 2025-11-30, in Unix milliseconds.
let sampleTime: Int64 = 1_764_505_000_000 - (1_764_505_000_000 % 86_400_000) + (12 * 60 + 34) * 60_000

/// A model with three rooms, some members and a typist, as after a short session.
func sampleModel() -> ChatViewModel {
    var model = ChatViewModel(serverName: "qchat.example", nick: "alice")
    model.connection = .connected
    model.roundTripMilliseconds = 23
    model.openRoom("lobby")
    model.openRoom("dev")
    model.append(ChatLine(timestamp: sampleTime, nick: "bob", text: "hello alice", kind: .message), to: "lobby")
    model.append(ChatLine(timestamp: sampleTime + 60_000, nick: "alice", text: "hi bob", kind: .ownConfirmed, id: "m1"),
                 to: "lobby")
    model.append(ChatLine(timestamp: sampleTime + 120_000, nick: "carol", text: "joined", kind: .event), to: "lobby")
    for index in 1...3 {
        model.append(ChatLine(timestamp: sampleTime, nick: "dave", text: "dev message \(index)", kind: .message), to: "dev")
    }
    model.setMembers(["bob", "alice", "carol"], in: "lobby")
    model.setStatus(.away, of: "carol")
    model.setTyping("bob", in: "lobby", until: sampleTime + 200_000)
    return model
}

/// An editor holding `text` with the cursor at the end.
func makeEditor(_ text: String) -> LineEditor {
    var editor = LineEditor()
    editor.insert(text)
    return editor
}

/// Renders, writes the frame in full onto a fresh virtual screen, and returns both.
func renderOnScreen(_ model: ChatViewModel, editor: LineEditor, size: TerminalSize,
                    options: RenderOptions = RenderOptions(now: sampleTime)) -> (frame: Frame, screen: VirtualScreen, bytes: [UInt8]) {
    let frame = Renderer(options: options).render(model, editor: editor, size: size)
    var screen = VirtualScreen(size: size)
    let bytes = FrameDiff.bytes(from: nil, to: frame)
    screen.apply(bytes)
    return (frame, screen, bytes)
}

/// Every escape sequence in writer output, as text after ESC up to its final byte.
func escapeSequences(in bytes: [UInt8]) -> [String] {
    var sequences: [String] = []
    var index = 0
    while index < bytes.count {
        guard bytes[index] == 0x1B else { index += 1; continue }
        // OSC: up to its ST (`ESC \`), the ST not included.
        if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "]") {
            var end = index + 2
            while end + 1 < bytes.count, !(bytes[end] == 0x1B && bytes[end + 1] == UInt8(ascii: "\\")) { end += 1 }
            sequences.append(String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self))
            index = end + 2
            continue
        }
        var end = index + 1
        while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) || end == index + 1 { end += 1 }
        sequences.append(String(decoding: bytes[(index + 1)...min(end, bytes.count - 1)], as: UTF8.self))
        index = end + 1
    }
    return sequences
}

/// True for the sequences FrameDiff and TerminalControl may emit: CUP, SGR, ED 2, ?25, ?1049, ?2004.
func isWriterSequence(_ sequence: String) -> Bool {
    // OSC 8 hyperlinks around web addresses: a URL of printable ASCII, or none (closing).
    if sequence.hasPrefix("]8;;") { return sequence.dropFirst(4).unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) } }
    let body = sequence.dropFirst()
    guard sequence.hasPrefix("["), let final = body.last else { return false }
    let parameters = body.dropLast()
    switch final {
    case "H": return parameters.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ";") }
    case "m": return parameters.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ";") }
    case "J": return parameters == "2"
    case "h", "l": return ["?25", "?1049", "?2004"].contains(String(parameters))
    default: return false
    }
}

/// The text of part of a row, trailing blanks removed.
func text(of frame: Frame, row: Int, columns: Range<Int>) -> String {
    var line = ""
    for column in columns.clamped(to: 0..<frame.columns) where !frame[row, column].isContinuation {
        line.append(frame[row, column].character)
    }
    while line.last == " " { line.removeLast() }
    return line
}
