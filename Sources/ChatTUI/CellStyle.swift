/// How a cell is drawn. Colours are indices into the terminal's 256-colour palette; nil is the
/// terminal's default foreground.
public struct CellStyle: Sendable, Hashable {
    public var foreground: UInt8?
    public var bold: Bool
    public var reverse: Bool

    public init(foreground: UInt8? = nil, bold: Bool = false, reverse: Bool = false) {
        self.foreground = foreground
        self.bold = bold
        self.reverse = reverse
    }

    public static let plain = CellStyle()
}
