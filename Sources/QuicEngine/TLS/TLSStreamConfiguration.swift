/// How a TLS client over a byte stream (TCP) checks its server: the stream counterpart of
/// `QuicTLSConfiguration`'s client side, for peers that speak TLS over TCP (an IRC server).
public struct TLSStreamConfiguration: Sendable {
    /// CAs that sign the server's certificate (PEM); required unless verification is skipped.
    public var trustedCAPath: String?
    /// Skip certificate verification (development only).
    public var insecureSkipVerification: Bool
    /// The name the server certificate must carry and the SNI sent (a DNS name or an IP address).
    public var serverName: String?
    /// A GnuTLS priority string. The default offers TLS 1.3 and 1.2 with the AEADs in the order
    /// the QUIC sessions use (AES-128-GCM first), so a comparison with QUIC pays for the same cipher.
    public var priority: String

    public static let defaultPriority =
        "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305"

    public init(trustedCAPath: String? = nil, insecureSkipVerification: Bool = false, serverName: String? = nil,
                priority: String = TLSStreamConfiguration.defaultPriority) {
        self.trustedCAPath = trustedCAPath
        self.insecureSkipVerification = insecureSkipVerification
        self.serverName = serverName
        self.priority = priority
    }
}
