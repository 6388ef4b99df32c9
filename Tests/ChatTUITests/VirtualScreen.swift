@testable import ChatTUI

/// A tiny VT interpreter for exactly the sequences the writer emits: CUP, SGR (0, 1, 7, 22, 27,
/// 30-37, 39, 90-97, 38;5;n), ED 2, and the private modes 1049 (alternate screen), 25 (cursor)
/// and 2004 (bracketed paste). Anything else, and anything a careful writer never does
/// (printing at the pending-wrap position, a glyph crossing the right edge, a raw control or C1
/// character, invalid UTF-8), is recorded in `violations` instead of being interpreted.
struct VirtualScreen {
    private(set) var mainScreen: Frame
    private(set) var alternateScreen: Frame
    private(set) var isAlternateScreenActive = false
    private(set) var cursor = CursorPosition(row: 0, column: 0)
    private(set) var isCursorVisible = true
    private(set) var isBracketedPasteEnabled = false
    private(set) var style = CellStyle.plain
    /// The hyperlink open (OSC 8), given to the cells printed under it.
    private(set) var link: String?
    private(set) var isWrapPending = false
    private(set) var violations: [String] = []
    /// How many SGR colour parameters (30-37, 90-97, 38;5;n) were applied.
    private(set) var colourSettings = 0
    /// How far the cursor advances after a cluster. A terminal that measures some clusters
    /// differently from ``DisplayWidth`` (e.g. summing scalar widths, as wcwidth-based ones do)
    /// can be imitated by replacing it.
    var cursorAdvance: (Character) -> Int = { DisplayWidth.columns(of: $0) }

    init(size: TerminalSize) {
        mainScreen = Frame(size: size)
        alternateScreen = Frame(size: size)
    }

    /// The active screen, with the cursor where the terminal shows it (nil when hidden).
    var frame: Frame {
        var frame = isAlternateScreenActive ? alternateScreen : mainScreen
        frame.cursor = visibleCursor
        return frame
    }
    var visibleCursor: CursorPosition? { isCursorVisible ? cursor : nil }
    var textLines: [String] { frame.textLines }

    /// Like a terminal window being resized: what fits stays, the rest is cut, nothing is cleared.
    mutating func resize(to size: TerminalSize) {
        mainScreen = Self.cropped(mainScreen, to: size)
        alternateScreen = Self.cropped(alternateScreen, to: size)
        cursor = CursorPosition(row: min(cursor.row, max(0, size.rows - 1)), column: min(cursor.column, max(0, size.columns - 1)))
        isWrapPending = false
    }

    private var linkedStyle: CellStyle {
        var linked = style
        linked.link = link
        return linked
    }

    /// OSC 8 only (`ESC ] 8 ; ; URL ESC \`, an empty URL closing the link), its URL printable
    /// ASCII; any other OSC, or one not ended by ST, is a violation.
    private mutating func applyHyperlink(_ bytes: [UInt8], from start: Int) -> Int {
        var end = start + 2
        while end + 1 < bytes.count, !(bytes[end] == 0x1B && bytes[end + 1] == UInt8(ascii: "\\")) { end += 1 }
        guard end + 1 < bytes.count else {
            violations.append("unterminated OSC")
            return bytes.count
        }
        let payload = bytes[(start + 2)..<end]
        let prefix = Array("8;;".utf8)
        guard payload.starts(with: prefix), payload.dropFirst(prefix.count).allSatisfy({ (0x21...0x7E).contains($0) }) else {
            violations.append("unexpected OSC \(String(decoding: payload, as: UTF8.self))")
            return end + 2
        }
        let url = String(decoding: payload.dropFirst(prefix.count), as: UTF8.self)
        link = url.isEmpty ? nil : url
        return end + 2
    }

    mutating func apply(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B {
                index = applyEscape(bytes, from: index)
            } else if byte < 0x20 || byte == 0x7F {
                violations.append("raw control byte 0x\(String(byte, radix: 16))")
                index += 1
            } else {
                var end = index
                while end < bytes.count, bytes[end] >= 0x20, bytes[end] != 0x7F { end += 1 }
                printText(Array(bytes[index..<end]))
                index = end
            }
        }
    }

    private mutating func applyEscape(_ bytes: [UInt8], from start: Int) -> Int {
        if start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "]") { return applyHyperlink(bytes, from: start) }
        guard start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "[") else {
            violations.append("escape that is not CSI")
            return start + 1
        }
        var index = start + 2
        var parameters = ""
        while index < bytes.count, (0x30...0x3F).contains(bytes[index]) {
            parameters.unicodeScalars.append(Unicode.Scalar(bytes[index]))
            index += 1
        }
        guard index < bytes.count, (0x40...0x7E).contains(bytes[index]) else {
            violations.append("unterminated or malformed CSI \(parameters)")
            return index
        }
        let final = Character(Unicode.Scalar(bytes[index]))
        applyControlSequence(parameters: parameters, final: final)
        return index + 1
    }

    private mutating func applyControlSequence(parameters: String, final: Character) {
        switch (final, parameters) {
        case ("H", _):
            let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
            let row = (numbers.first ?? 1) - 1
            let column = (numbers.count > 1 ? numbers[1] : 1) - 1
            guard frame.contains(row: row, column: column) else {
                violations.append("CUP outside the screen: \(parameters)")
                return
            }
            cursor = CursorPosition(row: row, column: column)
            isWrapPending = false
        case ("m", _):
            applySGR(parameters)
        case ("J", "2"):
            clearActiveScreen()
        case ("h", "?1049"):
            isAlternateScreenActive = true
            clearActiveScreen()
        case ("l", "?1049"):
            isAlternateScreenActive = false
        case ("h", "?25"): isCursorVisible = true
        case ("l", "?25"): isCursorVisible = false
        case ("h", "?2004"): isBracketedPasteEnabled = true
        case ("l", "?2004"): isBracketedPasteEnabled = false
        default:
            violations.append("unexpected CSI \(parameters)\(final)")
        }
    }

    private mutating func applySGR(_ parameters: String) {
        var numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
        while let number = numbers.popFirst() {
            switch number {
            case 0: style = .plain
            case 1: style.bold = true
            case 7: style.reverse = true
            case 22: style.bold = false
            case 27: style.reverse = false
            case 30...37: style.foreground = UInt8(number - 30); colourSettings += 1
            case 90...97: style.foreground = UInt8(number - 90 + 8); colourSettings += 1
            case 39: style.foreground = nil
            case 38:
                guard numbers.popFirst() == 5, let index = numbers.popFirst(), (0...255).contains(index) else {
                    violations.append("malformed SGR 38: \(parameters)")
                    return
                }
                style.foreground = UInt8(index)
                colourSettings += 1
            default:
                violations.append("unexpected SGR \(number)")
            }
        }
    }

    private mutating func printText(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            violations.append("invalid UTF-8")
            return
        }
        for character in text {
            if character.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) {
                violations.append("C1 control printed")
            }
            let width = DisplayWidth.columns(of: character)
            guard width > 0 else {
                violations.append("zero-width cluster printed: \(character.unicodeScalars.map { $0.value })")
                continue
            }
            if isWrapPending {
                violations.append("printed at the pending-wrap position")
                isWrapPending = false
            }
            guard cursor.column + width <= frame.columns else {
                violations.append("glyph crosses the right edge at \(cursor)")
                continue
            }
            if isAlternateScreenActive {
                alternateScreen.put(character, width: width, style: linkedStyle, row: cursor.row, column: cursor.column)
            } else {
                mainScreen.put(character, width: width, style: linkedStyle, row: cursor.row, column: cursor.column)
            }
            let advance = cursorAdvance(character)
            if cursor.column + advance >= frame.columns {
                cursor.column = frame.columns - 1
                isWrapPending = true
            } else {
                cursor.column += advance
            }
        }
    }

    private mutating func clearActiveScreen() {
        if isAlternateScreenActive {
            alternateScreen = Frame(size: alternateScreen.size)
        } else {
            mainScreen = Frame(size: mainScreen.size)
        }
    }

    private static func cropped(_ frame: Frame, to size: TerminalSize) -> Frame {
        var result = Frame(size: size)
        for row in 0..<min(frame.rows, size.rows) {
            for column in 0..<min(frame.columns, size.columns) {
                let cell = frame[row, column]
                if !cell.isContinuation {
                    result.put(cell.character, width: cell.width, style: cell.style, row: row, column: column)
                }
            }
        }
        return result
    }
}
