/// Typed reads for the known fields of a message. Each one consumes the whole value,
/// whatever its JSON type, so parsing can go on after a wrong type and still tell a
/// `bad-field` message apart from one that is not JSON at all.
extension JSONParser {
    mutating func readString(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<String> {
        switch current {
        case ASCII.quote:
            return .value(string(try scanString()))
        case ASCII.lowerN:
            try consumeLiteral("null")
            return .null
        default:
            try skipValue(depth: depth)
            return .wrongType
        }
    }

    /// Accepts only integer literals that fit in an `Int64`; `1.0`, `1e3` and `2^63` are the wrong type.
    mutating func readInteger(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<Int64> {
        switch current {
        case ASCII.minus, ASCII.zero...ASCII.nine:
            let token = try scanNumber()
            guard token.isInteger, let value = int64(token) else { return .wrongType }
            return .value(value)
        case ASCII.lowerN:
            try consumeLiteral("null")
            return .null
        default:
            try skipValue(depth: depth)
            return .wrongType
        }
    }

    mutating func readBool(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<Bool> {
        switch current {
        case ASCII.lowerT:
            try consumeLiteral("true")
            return .value(true)
        case ASCII.lowerF:
            try consumeLiteral("false")
            return .value(false)
        case ASCII.lowerN:
            try consumeLiteral("null")
            return .null
        default:
            try skipValue(depth: depth)
            return .wrongType
        }
    }

    /// An array whose elements must all be strings; one non-string element makes the whole
    /// field the wrong type (a `null` element too: a roster has no holes).
    mutating func readStringArray(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<[String]> {
        try readArray(depth: depth) { (parser) throws(ChatDecodeError) in
            guard parser.current == ASCII.quote else { return nil }
            return parser.string(try parser.scanString())
        }
    }

    /// An array whose every element `element` reads (it returns nil for one of the wrong shape,
    /// which must then be skipped by this function); a wrong element makes the whole field the
    /// wrong type, but the rest is still checked for syntax.
    mutating func readArray<Element>(
        depth: Int, element: (inout JSONParser) throws(ChatDecodeError) -> Element?
    ) throws(ChatDecodeError) -> JSONFieldValue<[Element]> {
        switch current {
        case ASCII.openBracket:
            var elements: [Element] = []
            var wellFormed = true
            try forEachElement(depth: depth) { (parser) throws(ChatDecodeError) in
                let start = parser.position
                if let value = try element(&parser) {
                    elements.append(value)
                } else {
                    // Not consumed by `element` when it refused at once: skip it whole.
                    if parser.position == start { try parser.skipValue(depth: depth + 1) }
                    wellFormed = false
                }
            }
            return wellFormed ? .value(elements) : .wrongType
        case ASCII.lowerN:
            try consumeLiteral("null")
            return .null
        default:
            try skipValue(depth: depth)
            return .wrongType
        }
    }
}
