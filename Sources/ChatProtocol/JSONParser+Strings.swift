/// JSON strings: one validating scan, then either the raw bytes (no escapes, the common case)
/// or an unescaping copy. Validation happens entirely in the scan, so the copy cannot fail.
extension JSONParser {
    /// Scans a string at `position` (which must be at `"`) and leaves `position` after it.
    ///
    /// Rejects raw control characters, invalid UTF-8, unknown escapes and `\u` escapes that
    /// would produce a lone surrogate: a Swift `String` cannot hold one, and replacing it
    /// silently would change what the sender wrote.
    mutating func scanString() throws(ChatDecodeError) -> JSONStringToken {
        try consume(ASCII.quote)
        let start = position
        var hasEscapes = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == ASCII.quote {
                let token = JSONStringToken(start: start, end: position, hasEscapes: hasEscapes)
                position += 1
                return token
            } else if byte == ASCII.backslash {
                hasEscapes = true
                try scanEscape()
            } else if byte < ASCII.space {
                throw .badJSON
            } else if byte < 0x80 {
                position += 1
            } else {
                guard let length = UTF8Validator.multiByteCharacterLength(in: bytes, at: position) else {
                    throw .badJSON
                }
                position += length
            }
        }
        throw .badJSON
    }

    /// Checks one escape sequence at `position` (at the backslash) and steps over it.
    private mutating func scanEscape() throws(ChatDecodeError) {
        guard position + 1 < bytes.count else { throw .badJSON }
        switch bytes[position + 1] {
        case ASCII.quote, ASCII.backslash, ASCII.slash, ASCII.lowerB, ASCII.lowerF, ASCII.lowerN, ASCII.lowerR, ASCII.lowerT:
            position += 2
        case ASCII.lowerU:
            let unit = try hexCodeUnit(at: position + 2)
            position += 6
            if UTF16.isLeadSurrogate(unit) {
                guard current == ASCII.backslash, position + 1 < bytes.count, bytes[position + 1] == ASCII.lowerU,
                    UTF16.isTrailSurrogate(try hexCodeUnit(at: position + 2))
                else { throw .badJSON }
                position += 6
            } else if UTF16.isTrailSurrogate(unit) {
                throw .badJSON
            }
        default:
            throw .badJSON
        }
    }

    /// The four hex digits at `offset` as a UTF-16 code unit.
    private func hexCodeUnit(at offset: Int) throws(ChatDecodeError) -> UInt16 {
        guard offset + 4 <= bytes.count else { throw .badJSON }
        var unit: UInt16 = 0
        for index in offset..<(offset + 4) {
            guard let digit = ASCII.hexValue(bytes[index]) else { throw .badJSON }
            unit = unit << 4 | digit
        }
        return unit
    }

    /// The contents of a scanned string as a Swift String.
    func string(_ token: JSONStringToken) -> String {
        if !token.hasEscapes {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[token.start..<token.end]), as: UTF8.self)
        }
        return String(decoding: unescapedBytes(token), as: UTF8.self)
    }

    /// The UTF-8 of a scanned string with its escapes resolved. Only valid for tokens from
    /// ``scanString()``, which has already rejected every malformed escape.
    func unescapedBytes(_ token: JSONStringToken) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(token.end - token.start)
        var index = token.start
        while index < token.end {
            let byte = bytes[index]
            guard byte == ASCII.backslash else {
                output.append(byte)
                index += 1
                continue
            }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case ASCII.lowerB: output.append(0x08)
            case ASCII.lowerF: output.append(0x0C)
            case ASCII.lowerN: output.append(ASCII.lineFeed)
            case ASCII.lowerR: output.append(ASCII.carriageReturn)
            case ASCII.lowerT: output.append(ASCII.tab)
            case ASCII.lowerU:
                var scalarValue = UInt32(knownHexCodeUnit(at: index))
                index += 4
                if UTF16.isLeadSurrogate(UInt16(scalarValue)) {
                    let trail = UInt32(knownHexCodeUnit(at: index + 2))
                    index += 6
                    scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (trail - 0xDC00)
                }
                // Surrogates were paired or rejected by the scan, so this is a valid scalar.
                appendUTF8(of: scalarValue, to: &output)
            default:
                // `"`, `\` and `/` stand for themselves.
                output.append(escaped)
            }
        }
        return output
    }

    private func appendUTF8(of scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    private func knownHexCodeUnit(at offset: Int) -> UInt16 {
        var unit: UInt16 = 0
        for index in offset..<(offset + 4) {
            unit = unit << 4 | (ASCII.hexValue(bytes[index]) ?? 0)
        }
        return unit
    }
}
