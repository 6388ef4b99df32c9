/// A neutraliser configuration and a text, both read from one fuzz input.
///
/// The first byte picks the configuration and how the rest becomes text: as UTF-8 (invalid bytes
/// turn into U+FFFD), or as three bytes per scalar over the whole code space, which reaches the
/// rare planes and categories that random UTF-8 seldom forms. A first byte of 0 is the message
/// body configuration with UTF-8 text, so a seed is an options byte and plain text.
struct FuzzedText {
    var neutralizer: TextNeutralizer
    var text: String

    init(_ input: UnsafeRawBufferPointer) {
        let options = input.first ?? 0
        let body = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        neutralizer = TextNeutralizer(
            lineFeed: options & 0b1 == 0 ? .lineBreak : .visibleSymbol,
            tabWidth: [4, 0, 1, 8][Int(options >> 1 & 0b11)],
            maximumScalarsPerCharacter: [32, 1, 2, 3, 4, 8, 16, 64][Int(options >> 3 & 0b111)])
        text = options & 0x80 == 0 ? String(decoding: body, as: UTF8.self) : Self.scalars(body)
    }

    private static func scalars(_ bytes: UnsafeRawBufferPointer) -> String {
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index + 3 <= bytes.count {
            let value = (UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])) % 0x11_0000
            // Surrogates are not scalars; moving them by 0x800 keeps every input byte meaningful.
            scalars.append(Unicode.Scalar(value) ?? Unicode.Scalar(value ^ 0x800)!)
            index += 3
        }
        return String(scalars)
    }
}
