/// The servers this person trusted on first use, like SSH's known_hosts: one line per server,
/// `HOST PORT sha256:FINGERPRINT` (known_servers), and for a server found on the local network by
/// its advertised name also `name:NAME sha256:FINGERPRINT` (the name percent-encoded; chat-client
/// keeps these in known_names, since a chat-client before issue 24 refuses a known_servers file
/// with a line it does not know), `#` comments and blank lines ignored. A name is what the person chose a server by, so it is what an impostor on the
/// same network would copy (with another address and its own certificate): trust follows the
/// name, not only the address (issue 24, defect 18). Parsing is strict: a line that is not
/// exactly that, or a server listed twice, makes the whole file an error, so a damaged file can
/// never make a server look known (or unknown) by accident.
public struct KnownServers: Sendable {
    public struct Entry: Equatable, Sendable {
        public let host: String
        public let port: UInt16
        /// 64 lowercase hex digits.
        public let fingerprint: String
        /// Where it is in the file (1-based), for "delete line N".
        public let line: Int
    }

    /// A file longer than this is refused (about ten thousand servers).
    public static let byteLimit = 1 << 20
    public static let header = "# qchat known servers (trust on first use): HOST PORT sha256:FINGERPRINT, one a line.\n"
        + "# chat-client adds a line when you trust a server; delete it to forget the server.\n"
    public static let namesHeader = "# qchat servers known by the name they advertise on the local network: name:NAME sha256:FINGERPRINT.\n"
        + "# chat-client adds a line when you trust a server chosen by its name; delete it to forget the name.\n"

    /// A server known by its advertised name.
    public struct NameEntry: Equatable, Sendable {
        public let name: String
        public let fingerprint: String
        public let line: Int
    }

    public private(set) var entries: [Entry] = []
    public private(set) var names: [NameEntry] = []
    /// Lines the file has, for the line number of an entry added.
    public private(set) var lineCount = 0

    public init() {}

    /// Parses the file's text; `name` is the path errors name.
    public init(text: String, name: String) throws(KnownServersError) {
        var seen: [String: Int] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lineCount = text.hasSuffix("\n") ? lines.count - 1 : lines.count
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            func problem(_ text: String) -> KnownServersError { KnownServersError(path: name, line: number, problem: text) }
            if fields[0].hasPrefix("name:") {
                guard fields.count == 2 else { throw problem("expected name:NAME sha256:FINGERPRINT, found \(fields.count) field(s)") }
                guard let advertised = StateField.decode(fields[0].dropFirst("name:".count)), !advertised.isEmpty else {
                    throw problem("'\(fields[0].prefix(80))' is not a percent-encoded name")
                }
                guard let fingerprint = Self.fingerprint(String(fields[1])) else {
                    throw problem("'\(fields[1].prefix(80))' is not sha256: and 64 hex digits")
                }
                if let earlier = names.first(where: { $0.name == advertised }) { throw problem("that name is listed already on line \(earlier.line)") }
                names.append(NameEntry(name: advertised, fingerprint: fingerprint, line: number))
                continue
            }
            guard fields.count == 3 else { throw problem("expected HOST PORT sha256:FINGERPRINT, found \(fields.count) field(s)") }
            guard let port = UInt16(fields[1]), port > 0 else { throw problem("'\(fields[1].prefix(20))' is not a port (1 to 65535)") }
            guard let fingerprint = Self.fingerprint(String(fields[2])) else {
                throw problem("'\(fields[2].prefix(80))' is not sha256: and 64 hex digits")
            }
            let host = Self.normalized(String(fields[0]))
            let key = "\(host) \(port)"
            if let earlier = seen[key] { throw problem("\(host) \(port) is listed already on line \(earlier)") }
            seen[key] = number
            entries.append(Entry(host: host, port: port, fingerprint: fingerprint, line: number))
        }
    }

    public func entry(host: String, port: UInt16) -> Entry? {
        let wanted = Self.normalized(host)
        return entries.first { $0.host == wanted && $0.port == port }
    }

    public func entry(name: String) -> NameEntry? { names.first { $0.name == name } }

    /// The line that records a server trusted under the name it advertised.
    public static func line(name: String, fingerprint: String) -> String {
        "name:\(StateField.encode(name)) sha256:\(fingerprint)\n"
    }

    /// The line that records a newly trusted server.
    public static func line(host: String, port: UInt16, fingerprint: String) -> String {
        "\(normalized(host)) \(port) sha256:\(fingerprint)\n"
    }

    /// Host names compare case-insensitively; addresses are kept as written.
    static func normalized(_ host: String) -> String { host.lowercased() }

    /// `sha256:` and 64 hex digits, as 64 lowercase hex digits.
    public static func fingerprint(_ text: String) -> String? {
        guard text.lowercased().hasPrefix("sha256:") else { return nil }
        let hex = text.dropFirst("sha256:".count).lowercased()
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return hex
    }
}

/// A known_servers file that cannot be used as it is.
public struct KnownServersError: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let line: Int
    public let problem: String

    public var description: String {
        "\(path) line \(line): \(problem); fix or delete that line (no server is trusted from a damaged file)"
    }
}
