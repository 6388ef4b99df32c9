import EventRuntime

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

    /// `v`, `alpn` and `fp` as advertised (empty when missing), for listings.
    public var version: String { txt["v"] ?? "" }
    public var alpn: String { txt["alpn"] ?? "" }
    public var fingerprint: String { txt["fp"] ?? "" }
}
