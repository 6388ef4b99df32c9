extension KeyDecoder {
    /// What a complete control sequence means to the decoder.
    enum SequenceMeaning: Sendable, Equatable {
        case key(KeyEvent)
        case bracketedPasteStart
    }

    /// Single control bytes. ESC is missing on purpose: it starts sequences.
    static let controlKeys: [UInt8: KeyEvent] = {
        var keys: [UInt8: KeyEvent] = [0x00: .control("@"), 0x1C: .control("\\"), 0x1D: .control("]"),
                                       0x1E: .control("^"), 0x1F: .control("_"), 0x7F: .backspace]
        for byte in UInt8(0x01)...0x1A {
            keys[byte] = .control(Character(Unicode.Scalar(byte + 0x60)))
        }
        keys[0x08] = .backspace
        keys[0x09] = .tab
        keys[0x0A] = .enter  // some terminals and pty setups send LF for Enter
        keys[0x0D] = .enter
        return keys
    }()

    /// Final bytes of CSI sequences that name a key whatever their parameters (`CSI 1;5A` is
    /// Ctrl-Up: the modifier is ignored).
    static let controlSequenceFinals: [UInt8: KeyEvent] = [
        UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down,
        UInt8(ascii: "C"): .right, UInt8(ascii: "D"): .left,
        UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end,
        UInt8(ascii: "Z"): .backTab,
    ]

    /// `CSI n ~` keys by their first parameter: the vt220 (1, 4), rxvt (7, 8) and xterm forms.
    static let tildeSequences: [Int: SequenceMeaning] = [
        1: .key(.home), 7: .key(.home),
        4: .key(.end), 8: .key(.end),
        2: .key(.insert), 3: .key(.delete),
        5: .key(.pageUp), 6: .key(.pageDown),
        200: .bracketedPasteStart,
    ]

    /// `ESC O x` keys (application cursor mode and some Home/End keys).
    static let singleShiftKeys: [UInt8: KeyEvent] = [
        UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down,
        UInt8(ascii: "C"): .right, UInt8(ascii: "D"): .left,
        UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end,
        UInt8(ascii: "M"): .enter,
        // rxvt's Ctrl-Left/Ctrl-Right.
        UInt8(ascii: "d"): .wordLeft, UInt8(ascii: "c"): .wordRight,
    ]

    /// ESC `]` (OSC), `P` (DCS), `X` (SOS), `^` (PM), `_` (APC): strings ended by BEL or ST.
    static let controlStringIntroducers: Set<UInt8> = [
        UInt8(ascii: "]"), UInt8(ascii: "P"), UInt8(ascii: "X"), UInt8(ascii: "^"), UInt8(ascii: "_"),
    ]

    /// The meaning of `CSI parameters final`, or nil for anything unknown (swallowed).
    static func key(forControlSequence parameters: [UInt8], final: UInt8) -> SequenceMeaning? {
        // Private parameter prefixes (`<` mouse reports, `?` mode replies, `>` versions) and
        // intermediate bytes never name a key.
        if let first = parameters.first, (0x3C...0x3F).contains(first) { return nil }
        if parameters.contains(where: { $0 < 0x30 }) { return nil }
        if final == UInt8(ascii: "~") {
            return firstParameter(of: parameters).flatMap { tildeSequences[$0] }
        }
        // `CSI 1;5C` (Ctrl) and `CSI 1;3C` (Alt) move by word; other modifiers are ignored.
        if final == UInt8(ascii: "C") || final == UInt8(ascii: "D"), let modifier = modifierParameter(of: parameters), modifier == 5 || modifier == 3 {
            return .key(final == UInt8(ascii: "C") ? .wordRight : .wordLeft)
        }
        return controlSequenceFinals[final].map { .key($0) }
    }

    /// The second parameter (`1;5` → 5), the modifier of an xterm key.
    static func modifierParameter(of parameters: [UInt8]) -> Int? {
        guard let separator = parameters.firstIndex(of: UInt8(ascii: ";")) else { return nil }
        return firstParameter(of: Array(parameters[(separator + 1)...]))
    }

    static func firstParameter(of parameters: [UInt8]) -> Int? {
        var value = 0
        var digits = 0
        for byte in parameters {
            guard (0x30...0x39).contains(byte) else { break }
            guard digits < 6 else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
