/// The key/value strings of a DNS-SD TXT record (RFC 6763 section 6): `key=value`, or `key`
/// alone for a flag. Keys compare case-insensitively and the first of a repeated key wins;
/// each string is at most 255 bytes.
public struct TXTRecord: Equatable, Sendable {
    public static let stringByteLimit = 255

    public private(set) var strings: [String]

    public init(strings: [String]) { self.strings = strings }

    /// From pairs in order; a pair whose `key=value` exceeds 255 bytes is refused.
    public init(_ pairs: KeyValuePairs<String, String>) throws(TXTRecordError) {
        strings = []
        for (key, value) in pairs {
            let string = "\(key)=\(value)"
            guard !key.isEmpty, !key.contains("="), string.utf8.count <= Self.stringByteLimit else {
                throw TXTRecordError(string: string)
            }
            strings.append(string)
        }
    }

    /// The value of `key` (its first occurrence); "" for a key without a value.
    public subscript(key: String) -> String? {
        let wanted = key.lowercased()
        for string in strings {
            let parts = string.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first, !name.isEmpty else { continue }
            if name.lowercased() == wanted { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }
}

public struct TXTRecordError: Error, CustomStringConvertible {
    public let string: String
    public var description: String { "TXT string '\(string.prefix(40))...' is empty-keyed or longer than 255 bytes" }
}
