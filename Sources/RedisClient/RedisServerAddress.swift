/// Where a Redis server listens, as given (a name is resolved when connecting, each time: a
/// restarted server may come back at another address).
public struct RedisServerAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// "HOST:PORT" or "[V6]:PORT", the form of CLUSTER SLOTS and MOVED.
    public init?(_ text: Substring) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return nil }
        self.init(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// `redis://HOST:PORT[/DB]` (the form of `--cluster`): the server and the database number.
public struct RedisURL: Hashable, Sendable, CustomStringConvertible {
    public var server: RedisServerAddress
    public var database: Int

    public static let defaultPort: UInt16 = 6379

    public init(server: RedisServerAddress, database: Int = 0) {
        self.server = server
        self.database = database
    }

    /// Parses the URL; nil with nothing else said (the caller names the option in its error).
    /// The port defaults to 6379, the database to 0; user, password and query are not supported.
    public init?(_ text: String) {
        guard text.hasPrefix("redis://") else { return nil }
        let rest = text.dropFirst("redis://".count)
        let authority: Substring
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            let path = rest[rest.index(after: slash)...]
            if !path.isEmpty {
                guard let number = Int(path), (0...15_999).contains(number) else { return nil }
                database = number
            }
        } else {
            authority = rest
        }
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("?") else { return nil }
        var host = authority
        var port = Self.defaultPort
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { return nil }
            port = parsed
        }
        guard !host.isEmpty, authority.hasPrefix("[") || !host.contains(":") else { return nil }
        let server = RedisServerAddress(host: String(host), port: port)
        self.init(server: server, database: database)
    }

    public var description: String { "redis://\(server)" + (database == 0 ? "" : "/\(database)") }
}
