/// A desktop notification asked of the terminal (issue 24, habits): OSC 9 (iTerm2, Windows
/// Terminal, kitty, WezTerm, foot, Ghostty) or OSC 777 `notify` (rxvt-unicode, foot, WezTerm,
/// Ghostty, VTE with the notify patch), for a mention or a private message. Inside tmux the
/// sequence is wrapped for tmux to pass it on (`allow-passthrough on`). The text is neutralised
/// and cut, so nothing from the network can end the sequence early or add one of its own.
public enum DesktopNotification: String, Sendable, CaseIterable {
    case osc9
    case osc777

    /// Characters of the body at most (terminals show a line or two).
    public static let bodyLimit = 200

    /// The bytes that ask for a notification `title` / `body`.
    public func sequence(title: String, body: String, insideTmux: Bool) -> String {
        let body = Self.cleaned(body, limit: Self.bodyLimit)
        let title = Self.cleaned(title, limit: 64)
        let sequence: String
        switch self {
        case .osc9: sequence = "\u{1B}]9;\(title): \(body)\u{07}"
        case .osc777: sequence = "\u{1B}]777;notify;\(title);\(body)\u{07}"
        }
        guard insideTmux else { return sequence }
        // tmux's passthrough: DCS tmux; the sequence with every ESC doubled; ST.
        return "\u{1B}Ptmux;" + String(sequence.flatMap { $0 == "\u{1B}" ? ["\u{1B}", "\u{1B}"] : [$0] }) + "\u{1B}\\"
    }

    /// One line of visible text: controls and escapes neutralised, `;` (OSC 777's separator)
    /// made `,`, at most `limit` characters (an ellipsis when cut).
    static func cleaned(_ text: String, limit: Int) -> String {
        let visible = String(TextNeutralizer.singleLine.neutralize(text).map { $0 == ";" ? "," : $0 })
        return visible.count > limit ? String(visible.prefix(limit - 1)) + "…" : visible
    }
}
