/// The naming and text rules of PROTOCOL.md section 4, shared by server and client so
/// that a client can refuse locally exactly what the server would refuse.
///
/// "Letter" means an ASCII letter, A-Z or a-z, everywhere: Unicode letters would bring
/// look-alike nicks (Latin "a" and Cyrillic "а"), case-insensitive comparison that depends
/// on locale and Unicode version, and names a terminal may not be able to show.
public enum ChatValidation {
    // MARK: Nicks

    /// True for 1 to 24 characters: an ASCII letter, then ASCII letters, digits, `_` or `-`.
    public static func isValidNick(_ nick: String) -> Bool {
        let utf8 = nick.utf8
        guard let first = utf8.first, utf8.count <= ChatLimits.maxNickLength, ASCII.isLetter(first) else {
            return false
        }
        return utf8.dropFirst().allSatisfy { byte in
            ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == ASCII.underscore || byte == ASCII.minus
        }
    }

    /// Throws ``ChatValidationError/badNick`` unless ``isValidNick(_:)``.
    public static func validateNick(_ nick: String) throws(ChatValidationError) {
        guard isValidNick(nick) else { throw .badNick }
    }

    /// The key under which nicks are compared for uniqueness: `Alice` and `alice` are the
    /// same user. Lower-cases ASCII only, matching the ASCII-only nick rule.
    public static func nickKey(_ nick: String) -> String {
        String(decoding: nick.utf8.map(asciiLowercased), as: UTF8.self)
    }

    /// `base` with the suffix `_<suffix>`, the base cut short so the result stays within
    /// ``ChatLimits/maxNickLength`` characters: `nickCandidate(base: "alice", suffix: 2)`
    /// is `alice_2`. A valid base gives a valid nick, since at least four characters of it
    /// survive even the longest `Int` suffix.
    public static func nickCandidate(base: String, suffix: Int) -> String {
        let ending = "_\(suffix)"
        return String(base.prefix(ChatLimits.maxNickLength - ending.count)) + ending
    }

    /// The first `count` nicks of `wanted`, `wanted_2`, `wanted_3`, ... that `isTaken` does not
    /// rule out, in that order (a cluster node asks the shared store for the first of them that
    /// no other node holds).
    public static func freeNickCandidates(for wanted: String, count: Int, startingAt first: Int = 1,
                                          isTaken: (String) -> Bool) -> [String] {
        var candidates: [String] = []
        var suffix = first
        while candidates.count < count {
            let candidate = suffix == 1 ? wanted : nickCandidate(base: wanted, suffix: suffix)
            if !isTaken(candidate) { candidates.append(candidate) }
            suffix += 1
        }
        return candidates
    }

    /// `wanted` if it is free, else the first free `wanted_2`, `wanted_3`, ... `isTaken`
    /// must compare case-insensitively, e.g. by looking up ``nickKey(_:)``.
    public static func firstFreeNick(for wanted: String, isTaken: (String) -> Bool) -> String {
        if !isTaken(wanted) { return wanted }
        var suffix = 2
        while isTaken(nickCandidate(base: wanted, suffix: suffix)) {
            suffix += 1
        }
        return nickCandidate(base: wanted, suffix: suffix)
    }

    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= ASCII.upperA && byte <= ASCII.upperZ ? byte + 0x20 : byte
    }
}
