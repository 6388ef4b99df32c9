/// PROTOCOL.md section 4 written out a second time, in the plainest terms and independently of
/// ``ChatValidation`` (scalars and character classes instead of byte tables), so that the fuzzer
/// can hold ChatValidation's verdicts against the text of the protocol.
enum ProtocolRules {
    /// nick: "1 to 24 characters: a letter, then letters, digits, `_` or `-`"; a letter is A-Z or a-z.
    static func isNick(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard (1...24).contains(scalars.count), isLetter(scalars[0]) else { return false }
        return scalars.dropFirst().allSatisfy { isLetter($0) || isDigit($0) || $0 == "_" || $0 == "-" }
    }

    /// room: "1 to 32 characters of `a-z 0-9 _ -`, starting with a letter or digit; the server
    /// lower-cases it" (ASCII only, so nothing outside ASCII can become valid). Nil when invalid.
    static func room(_ text: String) -> String? {
        var lowered = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            lowered.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
        }
        let scalars = Array(lowered)
        guard (1...32).contains(scalars.count), ("a"..."z").contains(scalars[0]) || isDigit(scalars[0]) else { return nil }
        let isAllowed = scalars.allSatisfy { ("a"..."z").contains($0) || isDigit($0) || $0 == "_" || $0 == "-" }
        return isAllowed ? String(lowered) : nil
    }

    /// peer: a UUID in its usual text form, `8-4-4-4-12` hexadecimal digits of either case.
    static func isPeerID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12]
            && groups.allSatisfy { group in group.unicodeScalars.allSatisfy { $0.isASCII && Character($0).isHexDigit } }
    }

    /// id of msg, dm, upload (section 12): "1 to 64 bytes of ASCII letters, digits and `-` `_` `.` `:`".
    static func isMessageID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy { isLetter($0) || isDigit($0) || "-_.:".unicodeScalars.contains($0) }
    }

    /// text: "control characters except LF and TAB are removed": general category Cc, which is
    /// exactly C0, DEL and C1.
    static func sanitizedText(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars
        where scalar.properties.generalCategory != .control || scalar == "\n" || scalar == "\t" {
            kept.append(scalar)
        }
        return String(kept)
    }

    static let maxTextBytes = 4096

    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }
}
