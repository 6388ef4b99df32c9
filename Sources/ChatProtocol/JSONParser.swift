/// A forward-only RFC 8259 reader over one buffer, with just what decoding a
/// ``ChatMessage`` needs: typed reads of known fields and validating skips of unknown ones.
///
/// Nothing is allocated except the Strings and arrays handed out, which keeps decoding in
/// the microsecond range. Every method throws `.badJSON` on a grammar violation; a value
/// of the wrong JSON type is reported as ``JSONFieldValue/wrongType`` only after it has been
/// checked for syntax, so a message that is not JSON at all is never called `bad-field`.
struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The byte at `position`, or 0 at the end. A NUL byte is never valid outside a JSON
    /// string and is rejected inside one, so 0 cannot be mistaken for real input.
    @inline(__always)
    var current: UInt8 { position < bytes.count ? bytes[position] : 0 }

    var isAtEnd: Bool { position >= bytes.count }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < bytes.count && ASCII.isWhitespace(bytes[position]) {
            position += 1
        }
    }

    /// Consumes `byte`, which must be next.
    @inline(__always)
    mutating func consume(_ byte: UInt8) throws(ChatDecodeError) {
        guard current == byte else { throw .badJSON }
        position += 1
    }

    /// Consumes `literal`, which must come next.
    mutating func consumeLiteral(_ literal: StaticString) throws(ChatDecodeError) {
        let length = literal.utf8CodeUnitCount
        guard position + length <= bytes.count else { throw .badJSON }
        let expected = UnsafeRawBufferPointer(start: literal.utf8Start, count: length)
        for offset in 0..<length where bytes[position + offset] != expected[offset] {
            throw .badJSON
        }
        position += length
    }

    // MARK: Containers

    /// Walks the members of an object; `position` must be at `{`. `body` gets each key and
    /// must consume exactly the member's value.
    mutating func forEachMember(
        depth: Int,
        _ body: (inout JSONParser, JSONStringToken) throws(ChatDecodeError) -> Void
    ) throws(ChatDecodeError) {
        guard depth <= ChatLimits.maxNestingDepth else { throw .badJSON }
        try consume(ASCII.openBrace)
        skipWhitespace()
        if current == ASCII.closeBrace {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard current == ASCII.quote else { throw .badJSON }
            let key = try scanString()
            skipWhitespace()
            try consume(ASCII.colon)
            skipWhitespace()
            try body(&self, key)
            skipWhitespace()
            switch current {
            case ASCII.comma: position += 1
            case ASCII.closeBrace: position += 1; return
            default: throw .badJSON
            }
        }
    }

    /// Walks the elements of an array; `position` must be at `[`.
    mutating func forEachElement(
        depth: Int,
        _ body: (inout JSONParser) throws(ChatDecodeError) -> Void
    ) throws(ChatDecodeError) {
        guard depth <= ChatLimits.maxNestingDepth else { throw .badJSON }
        try consume(ASCII.openBracket)
        skipWhitespace()
        if current == ASCII.closeBracket {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try body(&self)
            skipWhitespace()
            switch current {
            case ASCII.comma: position += 1
            case ASCII.closeBracket: position += 1; return
            default: throw .badJSON
            }
        }
    }

    /// Checks and steps over any value. `depth` is the nesting level the value would open.
    mutating func skipValue(depth: Int) throws(ChatDecodeError) {
        switch current {
        case ASCII.quote:
            _ = try scanString()
        case ASCII.openBrace:
            try forEachMember(depth: depth) { (parser, _) throws(ChatDecodeError) in
                try parser.skipValue(depth: depth + 1)
            }
        case ASCII.openBracket:
            try forEachElement(depth: depth) { (parser) throws(ChatDecodeError) in
                try parser.skipValue(depth: depth + 1)
            }
        case ASCII.lowerT:
            try consumeLiteral("true")
        case ASCII.lowerF:
            try consumeLiteral("false")
        case ASCII.lowerN:
            try consumeLiteral("null")
        case ASCII.minus, ASCII.zero...ASCII.nine:
            _ = try scanNumber()
        default:
            throw .badJSON
        }
    }
}
