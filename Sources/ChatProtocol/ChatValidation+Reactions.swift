/// Reactions and away reasons (PROTOCOL.md sections 14 to 17), shared by server and client.
extension ChatValidation {
    /// A reaction (`text` of `react` and `unreact`): 1 to 32 bytes of UTF-8 without spaces or
    /// control characters: an emoji (with its joiners and variation selectors), `+1`, `lgtm`.
    /// Spaces are every Unicode white space (no-break and ideographic spaces included), so two
    /// reactions that look alike cannot differ by an invisible blank.
    public static func isValidReaction(_ text: String) -> Bool {
        let size = text.utf8.count
        guard size >= 1, size <= ChatLimits.maxReactionBytes else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            !scalar.properties.isWhitespace && scalar.properties.generalCategory != .control
        }
    }

    /// Throws ``ChatValidationError/badReaction`` unless ``isValidReaction(_:)``.
    public static func validateReaction(_ text: String) throws(ChatValidationError) {
        guard isValidReaction(text) else { throw .badReaction }
    }

    /// An away reason as the server stores and shows it: one line, as a topic (LF and TAB become
    /// spaces, other control characters go), at most ``ChatLimits/maxAwayReasonBytes`` bytes.
    /// Throws ``ChatValidationError/awayTooLong`` (`bad-field`, section 17).
    public static func sanitizeAwayReason(_ reason: String) throws(ChatValidationError) -> String {
        let sanitized: String
        do { sanitized = try sanitizeTopic(reason) } catch { throw .awayTooLong }
        guard sanitized.utf8.count <= ChatLimits.maxAwayReasonBytes else { throw .awayTooLong }
        return sanitized
    }
}
