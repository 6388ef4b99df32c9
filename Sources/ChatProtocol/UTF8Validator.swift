/// Byte-at-a-time UTF-8 validation (RFC 3629), resumable across buffers.
///
/// It rejects overlong forms, UTF-16 surrogates encoded as UTF-8 (U+D800...U+DFFF),
/// code points above U+10FFFF, stray continuation bytes and truncated sequences.
/// Keeping the state in a value lets the stream decoder validate a character that is
/// split between two QUIC frames without buffering it.
struct UTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected for the current character.
    private var pendingContinuations: UInt8 = 0
    /// Allowed range of the next continuation byte; narrower than 0x80...0xBF right after
    /// some lead bytes, which is how overlongs, surrogates and values past U+10FFFF are excluded.
    private var lowerBound: UInt8 = 0x80
    private var upperBound: UInt8 = 0xBF

    /// True when no character is half-way through.
    var isAtCharacterBoundary: Bool { pendingContinuations == 0 }

    /// Consumes one byte; false when the byte cannot continue valid UTF-8.
    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        if pendingContinuations == 0 {
            if byte < 0x80 { return true }
            guard let lead = UTF8Validator.leadByteRule(byte) else { return false }
            pendingContinuations = lead.continuations
            lowerBound = lead.lowerBound
            upperBound = lead.upperBound
            return true
        }
        guard byte >= lowerBound && byte <= upperBound else { return false }
        pendingContinuations &-= 1
        lowerBound = 0x80
        upperBound = 0xBF
        return true
    }

    /// For a lead byte: how many continuation bytes follow and the range of the first one.
    /// Nil for bytes that can never start a character (0x80...0xC1, 0xF5...0xFF).
    @inline(__always)
    static func leadByteRule(_ byte: UInt8) -> (continuations: UInt8, lowerBound: UInt8, upperBound: UInt8)? {
        switch byte {
        case 0xC2...0xDF: (1, 0x80, 0xBF)
        case 0xE0: (2, 0xA0, 0xBF)  // excludes overlong 3-byte forms
        case 0xE1...0xEC, 0xEE...0xEF: (2, 0x80, 0xBF)
        case 0xED: (2, 0x80, 0x9F)  // excludes the surrogates U+D800...U+DFFF
        case 0xF0: (3, 0x90, 0xBF)  // excludes overlong 4-byte forms
        case 0xF1...0xF3: (3, 0x80, 0xBF)
        case 0xF4: (3, 0x80, 0x8F)  // excludes code points above U+10FFFF
        default: nil
        }
    }

    /// The length of the valid multi-byte character that starts at `index`, or nil.
    /// `index` must point at a byte >= 0x80.
    @inline(__always)
    static func multiByteCharacterLength(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        guard let lead = leadByteRule(bytes[index]) else { return nil }
        let count = Int(lead.continuations)
        guard index + count < bytes.count else { return nil }
        let first = bytes[index + 1]
        guard first >= lead.lowerBound && first <= lead.upperBound else { return nil }
        var offset = 2
        while offset <= count {
            guard bytes[index + offset] & 0xC0 == 0x80 else { return nil }
            offset += 1
        }
        return count + 1
    }
}
