/// File names and checksums of PROTOCOL.md section 9.
extension ChatValidation {
    /// True for 1 to ``ChatLimits/maxFileNameBytes`` bytes of UTF-8 without `/` and without
    /// control characters (C0, DEL, C1). Names like `..` pass: a receiver never uses a name from
    /// the network as a path before neutralising it (``safeFileName(_:)``).
    public static func isValidFileName(_ name: String) -> Bool {
        let count = name.utf8.count
        guard count > 0, count <= ChatLimits.maxFileNameBytes, !name.utf8.contains(ASCII.slash) else { return false }
        return !name.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
        }
    }

    /// True for exactly 64 lowercase hex digits.
    public static func isValidSHA256(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == ChatLimits.sha256HexDigits && utf8.allSatisfy { ASCII.isDigit($0) || ($0 >= ASCII.lowerA && $0 <= ASCII.lowerF) }
    }

    /// A name from the network made safe to create in a folder: one path component, never `.`
    /// or `..`, no `/`, no NUL or other control character, no leading `-` or `.` (an option to a
    /// command, a hidden file), at most 255 bytes of UTF-8 (cut between scalars, the extension
    /// kept); an empty result is `file`. The text shown to people is neutralised separately.
    public static func safeFileName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2F, 0x5C: scalars.append("_")
            default: scalars.append(scalar)
            }
        }
        var safe = String(scalars)
        while let first = safe.unicodeScalars.first, first == "." || first == "-" || first == " " {
            safe.unicodeScalars.removeFirst()
        }
        while let last = safe.unicodeScalars.last, last == " " || last == "." {
            safe.unicodeScalars.removeLast()
        }
        if safe.isEmpty { return "file" }
        guard safe.utf8.count > ChatLimits.maxFileNameBytes else { return safe }
        let (stem, suffix) = splitExtension(safe)
        let room = ChatLimits.maxFileNameBytes - suffix.utf8.count
        var cut = String.UnicodeScalarView()
        var used = 0
        for scalar in (room > 0 ? stem : safe).unicodeScalars {
            let size = String(scalar).utf8.count
            guard used + size <= (room > 0 ? room : ChatLimits.maxFileNameBytes) else { break }
            cut.append(scalar)
            used += size
        }
        return String(cut) + (room > 0 ? suffix : "")
    }

    /// `name` and `.ext` (the last dot not at the start, with at most 16 bytes after it), or
    /// the whole name and "".
    public static func splitExtension(_ name: String) -> (stem: String, suffix: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let suffix = name[dot...]
        guard suffix.utf8.count <= 17, suffix.utf8.count > 1 else { return (name, "") }
        return (String(name[..<dot]), String(suffix))
    }
}
