import QuicEngine

/// A server as the person names it: `--host H --port P`, or `--server HOST:PORT` (repeatable, and
/// `server =` in the configuration), the host a DNS name, an IPv4 address or an IPv6 address in
/// brackets. How a `--server` value is told from the name of a server advertised on the local
/// network (`--server NAME`, PROTOCOL.md section 11): it is an address when it reads exactly as
/// HOST:PORT, PORT being digits; anything else is a name (a name of that form is reached with
/// `--discover`). An IPv6 address without brackets is an error, never a name.
public struct ServerSpec: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public enum Parsed: Equatable, Sendable {
        case address(ServerSpec)
        /// Not of the address form: the name of a server on the local network.
        case name(String)
        /// Of the address form but wrong (a port out of range, an IPv6 address without brackets).
        case invalid(String)
    }

    public static func parse(_ text: String) -> Parsed {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let inside = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = port(rest.dropFirst()) else {
                return .invalid("'\(text)': an IPv6 address goes in brackets with a port: [ADDRESS]:PORT, the port 1 to 65535")
            }
            guard SocketAddress(host: inside, port: port)?.isIPv6 == true else { return .invalid("'\(text)': '\(inside)' is not an IPv6 address") }
            return .address(ServerSpec(host: inside, port: port))
        }
        if text.filter({ $0 == ":" }).count > 1 {
            let bare = SocketAddress(host: text, port: 1)?.isIPv6 == true
            let withPort = text.lastIndex(of: ":").map { SocketAddress(host: String(text[..<$0]), port: 1)?.isIPv6 == true } ?? false
            if bare || withPort { return .invalid("'\(text)': an IPv6 address goes in brackets with a port: [ADDRESS]:PORT") }
        }
        guard let colon = text.lastIndex(of: ":"), isHost(text[..<colon]) else { return .name(text) }
        let digits = text[text.index(after: colon)...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .name(text) }
        guard let port = port(digits) else { return .invalid("'\(text)': the port must be 1 to 65535") }
        return .address(ServerSpec(host: String(text[..<colon]), port: port))
    }

    /// A DNS name (labels of ASCII letters, digits and `-`, not at either end, 1 to 63 each, 253
    /// at most in all; a final dot allowed) or an IPv4 address.
    static func isHost(_ text: Substring) -> Bool {
        let name = text.hasSuffix(".") ? text.dropLast() : text
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    private static func port(_ digits: Substring) -> UInt16? {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits),
              (1...65535).contains(value) else { return nil }
        return UInt16(value)
    }

    /// `host:port`, `[v6]:port`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Each address the host resolves to (a DNS name with several is several servers), with the
    /// policy `policy` gives it; empty when it does not resolve.
    public func resolve(policy: ServerCertificatePolicy = .certificateAuthority) -> [ServerAddress] {
        SocketAddress.resolveAll(host: host, port: port).map { ServerAddress(host: host, port: port, address: $0, policy: policy) }
    }

    /// Most `--server` values (and `server =` items) one client or bot takes.
    public static let limit = 32
    /// Most addresses the servers may resolve to, all together; the rest are not used.
    public static let addressLimit = 64

    /// Why a list of `--server` values cannot be used (a usage error's text).
    public struct Refusal: Error, Equatable {
        public let text: String
    }

    /// Sorts `--server` values into addresses (each once, in order) and names, refusing a wrong
    /// address and more than ``limit`` addresses.
    public static func sort(_ values: [String]) throws(Refusal) -> (addresses: [ServerSpec], names: [String]) {
        var addresses: [ServerSpec] = []
        var names: [String] = []
        for value in values {
            switch parse(value) {
            case .address(let server): if !addresses.contains(server) { addresses.append(server) }
            case .name(let name): names.append(name)
            case .invalid(let why): throw Refusal(text: "--server \(why)")
            }
        }
        guard addresses.count <= limit else { throw Refusal(text: "--server: at most \(limit) servers") }
        return (addresses, names)
    }

    /// Every address of every server, in order, at most ``addressLimit``, each with the policy
    /// `policy` gives its server; and the servers that did not resolve.
    public static func resolve(_ servers: [ServerSpec], policy: (ServerSpec) -> ServerCertificatePolicy = { _ in .certificateAuthority })
        -> (addresses: [ServerAddress], unresolved: [ServerSpec]) {
        var addresses: [ServerAddress] = []
        var unresolved: [ServerSpec] = []
        for server in servers {
            let resolved = server.resolve(policy: policy(server))
            if resolved.isEmpty { unresolved.append(server) }
            addresses += resolved.filter { !addresses.map(\.address).contains($0.address) }.prefix(addressLimit - addresses.count)
        }
        return (addresses, unresolved)
    }
}

/// Options that name one server or several (chat-client's, chat-bot's): the first also as `host`
/// and `port`, the flags that name one.
public protocol ServerListOptions {
    /// Never empty.
    var servers: [ServerSpec] { get set }
}

extension ServerListOptions {
    public var host: String {
        get { servers[0].host }
        set { servers[0].host = newValue }
    }

    public var port: UInt16 {
        get { servers[0].port }
        set { servers[0].port = newValue }
    }

    /// The servers as messages and reports name them: `a:1, [::1]:2`.
    public var serverList: String { servers.map(\.description).joined(separator: ", ") }
}
