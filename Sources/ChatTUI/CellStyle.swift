/// How a cell is drawn. Colours are indices into the terminal's 256-colour palette; nil is the
/// terminal's default foreground.
public struct CellStyle: Sendable, Hashable {
    public var foreground: UInt8?
    public var bold: Bool
    public var reverse: Bool
    /// The web address the cell links to (OSC 8; issue 24, URLs): only what ``URLFinder`` found,
    /// so printable ASCII without a control, at most ``linkLimit`` bytes.
    public var link: String?

    /// Longer addresses are shown, not linked (terminals refuse long ones).
    public static let linkLimit = 2_048

    public init(foreground: UInt8? = nil, bold: Bool = false, reverse: Bool = false, link: String? = nil) {
        self.foreground = foreground
        self.bold = bold
        self.reverse = reverse
        self.link = link
    }

    /// The same look without the link: what SGR says.
    var withoutLink: CellStyle { CellStyle(foreground: foreground, bold: bold, reverse: reverse) }

    public static let plain = CellStyle()
}
