/// A file transfer as the status bar draws it: a bar of its fraction done with the figures the
/// client worked out (sizes, rate and time left are the client's own words, formatted once).
public struct TransferProgress: Sendable, Equatable {
    public var isUpload: Bool
    /// The file's name, raw: the renderer neutralises it.
    public var name: String
    /// 0...1; nil while the file is still being hashed.
    public var fraction: Double?
    /// `12.3 MiB/100.0 MiB`.
    public var amounts: String
    /// `8.1 MiB/s`, when known.
    public var rate: String?
    /// `11 s left`, when known.
    public var timeLeft: String?

    public init(isUpload: Bool, name: String, fraction: Double?, amounts: String, rate: String? = nil, timeLeft: String? = nil) {
        self.isUpload = isUpload
        self.name = name
        self.fraction = fraction
        self.amounts = amounts
        self.rate = rate
        self.timeLeft = timeLeft
    }

    /// The forms the status bar tries, the most complete first: arrow, name (whole, then cut to 12
    /// columns), a 10-cell bar, percent, amounts, rate, time left; then fewer figures and a 6-cell
    /// bar; at the end the arrow and the percent alone.
    func forms() -> [String] {
        let arrow = isUpload ? "↑" : "↓"
        guard let fraction else {
            return ["\(arrow) \(name) hashing…", "\(arrow) \(Self.cut(name, to: 12)) hashing…", "\(arrow) hashing…"]
        }
        let percent = "\(Int((min(1, max(0, fraction)) * 100).rounded(.down)))%"
        let wide = Self.bar(fraction, cells: 10), narrow = Self.bar(fraction, cells: 6)
        let figures = [amounts, rate, timeLeft].compactMap { $0 }.joined(separator: " ")
        let pace = [rate, timeLeft].compactMap { $0 }.joined(separator: " ")
        let short = Self.cut(name, to: 12)
        var forms: [String] = []
        for label in [name, short] {
            forms.append("\(arrow) \(label) \(wide) \(percent) \(figures)")
            if !pace.isEmpty { forms.append("\(arrow) \(label) \(wide) \(percent) \(pace)") }
            forms.append("\(arrow) \(label) \(wide) \(percent)")
        }
        forms.append("\(arrow) \(wide) \(percent)\(timeLeft.map { " " + $0 } ?? "")")
        forms.append("\(arrow) \(wide) \(percent)")
        forms.append("\(arrow) \(narrow) \(percent)")
        forms.append("\(arrow) \(percent)")
        return forms
    }

    /// `[████▌     ]`: `cells` cells between brackets, each full block an eighth at a time
    /// (U+2588, U+258F…U+2589 for the last, partly filled one), the rest blank.
    static func bar(_ fraction: Double, cells: Int) -> String {
        let eighths = Int((min(1, max(0, fraction)) * Double(cells * 8)).rounded(.down))
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        let filled = String(repeating: "█", count: eighths / 8) + partial
        return "[" + filled + String(repeating: " ", count: cells - eighths / 8 - (partial.isEmpty ? 0 : 1)) + "]"
    }

    /// At most `columns` characters, the last one `…` when cut.
    static func cut(_ text: String, to columns: Int) -> String {
        text.count <= columns ? text : String(text.prefix(columns - 1)) + "…"
    }
}
