/// Byte values the JSON code compares against, named so the scanners read like the grammar.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22  // "
    static let plus: UInt8 = 0x2B  // +
    static let comma: UInt8 = 0x2C  // ,
    static let minus: UInt8 = 0x2D  // -
    static let period: UInt8 = 0x2E  // .
    static let slash: UInt8 = 0x2F  // /
    static let zero: UInt8 = 0x30  // 0
    static let nine: UInt8 = 0x39  // 9
    static let colon: UInt8 = 0x3A  // :
    static let upperA: UInt8 = 0x41  // A
    static let upperE: UInt8 = 0x45  // E
    static let upperF: UInt8 = 0x46  // F
    static let upperZ: UInt8 = 0x5A  // Z
    static let openBracket: UInt8 = 0x5B  // [
    static let backslash: UInt8 = 0x5C  // \
    static let closeBracket: UInt8 = 0x5D  // ]
    static let underscore: UInt8 = 0x5F  // _
    static let lowerA: UInt8 = 0x61  // a
    static let lowerB: UInt8 = 0x62  // b
    static let lowerC: UInt8 = 0x63  // c
    static let lowerE: UInt8 = 0x65  // e
    static let lowerF: UInt8 = 0x66  // f
    static let lowerI: UInt8 = 0x69  // i
    static let lowerL: UInt8 = 0x6C  // l
    static let lowerM: UInt8 = 0x6D  // m
    static let lowerN: UInt8 = 0x6E  // n
    static let lowerO: UInt8 = 0x6F  // o
    static let lowerP: UInt8 = 0x70  // p
    static let lowerR: UInt8 = 0x72  // r
    static let lowerS: UInt8 = 0x73  // s
    static let lowerT: UInt8 = 0x74  // t
    static let lowerU: UInt8 = 0x75  // u
    static let lowerW: UInt8 = 0x77  // w
    static let lowerZ: UInt8 = 0x7A  // z
    static let openBrace: UInt8 = 0x7B  // {
    static let closeBrace: UInt8 = 0x7D  // }
    static let delete: UInt8 = 0x7F

    /// JSON whitespace (RFC 8259 section 2), which is also what may separate stream messages.
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == lineFeed || byte == carriageReturn || byte == tab
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= nine }

    @inline(__always)
    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= lowerA && byte <= lowerZ) || (byte >= upperA && byte <= upperZ)
    }

    /// The value of a hexadecimal digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt16? {
        switch byte {
        case zero...nine: UInt16(byte - zero)
        case lowerA...lowerF: UInt16(byte - lowerA + 10)
        case upperA...upperF: UInt16(byte - upperA + 10)
        default: nil
        }
    }
}
