/// Message ids (`id` of `msg`, `dm` and `upload`, PROTOCOL.md section 12): short and inert, since
/// the server stores them with the message, relays them to every recipient and echoes them in
/// acks and errors.
extension ChatValidation {
    /// True for 1 to ``ChatLimits/maxMessageIDBytes`` bytes of ASCII letters, digits, `-`, `_`,
    /// `.` and `:` (a UUID, a ULID, `host:counter`, ... fit; control characters and anything a
    /// terminal could interpret do not).
    public static func isValidMessageID(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard !utf8.isEmpty, utf8.count <= ChatLimits.maxMessageIDBytes else { return false }
        return utf8.allSatisfy { byte in
            ASCII.isLetter(byte) || ASCII.isDigit(byte)
                || byte == ASCII.minus || byte == ASCII.underscore || byte == ASCII.period || byte == ASCII.colon
        }
    }
}
