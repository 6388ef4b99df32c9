/// Client only: how the handshake accepts the server's certificate. The policy is a value set up
/// before the connection starts; GnuTLS's verification callback applies it alone and records what
/// it saw (``QuicConnection/serverCertificateVerdict``): it never calls into the application, and
/// no connection carries application data to a server the policy did not accept.
public enum ServerCertificatePolicy: Sendable, Equatable {
    /// A chain that ``QuicTLSConfiguration/trustedCAPath`` signs, for ``QuicTLSConfiguration/serverName``.
    case certificateAuthority
    /// Exactly the certificate whose SHA-256 is this (64 lowercase hex digits): a pin kept from
    /// an earlier connection (trust on first use). Any other certificate ends the handshake.
    case pinned(String)
    /// No pin yet: a chain that `trustedCAPath` (when there is one) signs for the server's name
    /// is accepted; any other certificate ends the handshake as ``ServerCertificateVerdict/unknown(presented:)``,
    /// so the application can ask about its fingerprint before a connection pins it. The
    /// client's own certificate, sent after the server's is checked, never reaches such a server.
    case firstUse
}

/// What the handshake's check of the server certificate found.
public enum ServerCertificateVerdict: Sendable, Equatable {
    /// A CA of `trustedCAPath` signed it for the server's name.
    case signedByCA
    /// It is the pinned one.
    case pinned
    /// No CA signed it and there was no pin (``ServerCertificatePolicy/firstUse``): refused.
    case unknown(presented: String)
    /// Not the pinned certificate: refused.
    case changed(pinned: String, presented: String)

    public var isAccepted: Bool {
        switch self {
        case .signedByCA, .pinned: return true
        case .unknown, .changed: return false
        }
    }
}
