/// Message text: control characters other than LF and TAB are removed, then the result
/// must be 1 to 4096 bytes of UTF-8. The size is checked after removal, so what is
/// limited is exactly what gets stored and relayed.
extension ChatValidation {
    /// The text of a `msg` or `dm` as the server stores and relays it.
    ///
    /// Throws ``ChatValidationError/textTooLarge`` (`too-large`) or
    /// ``ChatValidationError/textEmpty`` (`bad-field`).
    public static func sanitizeText(_ text: String) throws(ChatValidationError) -> String {
        let sanitized = removingControlCharacters(from: text)
        let size = sanitized.utf8.count
        guard size > 0 else { throw .textEmpty }
        guard size <= ChatLimits.maxTextBytes else { throw .textTooLarge }
        return sanitized
    }

    /// Removes C0 controls except LF and TAB, DEL, and the C1 controls U+0080...U+009F
    /// (which include CSI, U+009B, the single-character form of ESC `[`). ESC itself is a
    /// C0 control, so no terminal escape sequence survives.
    public static func removingControlCharacters(from text: String) -> String {
        // Most texts have none: check the bytes first and return the original untouched.
        // C1 controls are encoded as 0xC2 0x80...0x9F, so 0xC2 is the only lead byte to inspect.
        let needsWork = text.utf8.contains { byte in
            (byte < ASCII.space && byte != ASCII.lineFeed && byte != ASCII.tab) || byte == ASCII.delete || byte == 0xC2
        }
        guard needsWork else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { !isRemovedControl($0) })
        return String(scalars)
    }

    private static func isRemovedControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }
}
