import QuicEngine

/// A qchat server found on the local network (PROTOCOL.md section 11): its instance name, the
/// addresses its host resolved to (IPv4 first), its port and its TXT record.
public struct DiscoveredService: Equatable, Sendable {
    public let name: String
    public let hostName: String
    public let addresses: [SocketAddress]
    public let port: UInt16
    public let txt: TXTRecord

    public init(name: String, hostName: String, addresses: [SocketAddress], port: UInt16, txt: TXTRecord) {
        self.name = name
        self.hostName = hostName
        self.addresses = addresses
        self.port = port
        self.txt = txt
    }

    /// The address to connect to: the first, an IPv4 one when there is one.
    public var address: SocketAddress? { addresses.first }

    /// The certificate fingerprint the service advertises (`fp=sha256:<64 hex>`), as 64
    /// lowercase hex digits; nil when absent or malformed.
    public var advertisedFingerprint: String? {
        guard let value = txt["fp"], value.hasPrefix("sha256:") else { return nil }
        let hex = value.dropFirst("sha256:".count).lowercased()
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return hex
    }

    /// `v`, `alpn` and `fp` as advertised (empty when missing), for listings.
    public var version: String { txt["v"] ?? "" }
    public var alpn: String { txt["alpn"] ?? "" }
}
