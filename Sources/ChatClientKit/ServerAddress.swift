import QuicEngine

/// One server a session may connect to (PROTOCOL.md section 10: any node of a cluster serves the
/// same chat): the host as the person gave it (the TLS server name, and the key of trust on first
/// use), its port, one address it resolved to (a name with several addresses is several servers),
/// and the certificate policy its connections use.
public struct ServerAddress: Equatable, Sendable {
    public let host: String
    public let port: UInt16
    public let address: SocketAddress
    public var policy: ServerCertificatePolicy

    public init(host: String, port: UInt16, address: SocketAddress, policy: ServerCertificatePolicy = .certificateAuthority) {
        self.host = host
        self.port = port
        self.address = address
        self.policy = policy
    }

    /// The server as the person named it.
    public var spec: ServerSpec { ServerSpec(host: host, port: port) }

    /// `host:port` as given (`[::1]:4433` for an IPv6 literal), with the address it resolved to
    /// when that differs: `chat.example:4433 (192.0.2.7)`.
    public var label: String {
        let given = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return address.host == host ? given : "\(given) (\(address.host))"
    }
}
