/// Where a scanned JSON string's contents lie in the input, quotes excluded.
struct JSONStringToken {
    /// Offset of the first content byte.
    let start: Int
    /// Offset of the closing quote.
    let end: Int
    /// False when the contents are already the string's UTF-8 and can be used as they are.
    let hasEscapes: Bool
}
