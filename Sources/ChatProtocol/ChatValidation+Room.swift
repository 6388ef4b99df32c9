/// Room names: 1 to 32 characters of `a-z 0-9 _ -`, starting with a letter or digit,
/// after lower-casing. A message without `room` means ``ChatLimits/defaultRoom``, but an
/// empty `room` string is a bad name, not the default.
extension ChatValidation {
    /// The lower-cased room name, or nil when it breaks the rules even after lower-casing.
    /// Only ASCII is lower-cased, so no non-ASCII character can turn into a valid one
    /// (the Kelvin sign U+212A lower-cases to an ASCII `k` under Unicode rules).
    public static func normalizeRoom(_ room: String) -> String? {
        let lowered = room.utf8.map(asciiLowercased)
        guard let first = lowered.first, lowered.count <= ChatLimits.maxRoomLength,
            isLowercaseLetterOrDigit(first),
            lowered.allSatisfy({ isLowercaseLetterOrDigit($0) || $0 == ASCII.underscore || $0 == ASCII.minus })
        else { return nil }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// ``normalizeRoom(_:)`` that throws ``ChatValidationError/badRoom`` instead of returning nil.
    public static func validateRoom(_ room: String) throws(ChatValidationError) -> String {
        guard let normalized = normalizeRoom(room) else { throw .badRoom }
        return normalized
    }

    private static func isLowercaseLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= ASCII.lowerA && byte <= ASCII.lowerZ) || ASCII.isDigit(byte)
    }
}
