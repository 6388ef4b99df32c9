internal import CQuic
import Glibc

/// GnuTLS certificate credentials loaded once per endpoint and shared by all its sessions, with
/// what else every session of the endpoint shares: the parsed priority string and, for a server,
/// the session ticket key.
final class TLSCredentials {
    /// QUIC needs TLS 1.3 only, without middlebox compatibility mode (RFC 9001 section 8.4).
    static let priorityString =
        "%DISABLE_TLS13_COMPAT_MODE:NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"
        + "+CHACHA20-POLY1305:+AES-128-CCM:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1"

    let handle: gnutls_certificate_credentials_t
    let hasTrustAnchors: Bool
    /// Parsed once: parsing the priority string was a tenth of a server's TLS set-up per connection.
    let priority: gnutls_priority_t
    /// A server's session ticket key (GnuTLS rotates the keys it derives from it), made from the
    /// private key like the stateless reset secret: a restarted server still resumes the
    /// sessions of its clients, which is when a reconnect storm most needs it. Nil for a client.
    let ticketKey: UnsafeMutablePointer<gnutls_datum_t>?

    init(_ config: QuicTLSConfiguration, ticketKeyMaterial: [UInt8]? = nil) throws {
        var handle: gnutls_certificate_credentials_t?
        try TLSCredentials.check(gnutls_certificate_allocate_credentials(&handle), "gnutls_certificate_allocate_credentials")
        do {
            if let chain = config.certificateChainPath {
                guard let key = config.privateKeyPath else { throw QuicError.invalidConfiguration("a certificate needs its private key") }
                let result = gnutls_certificate_set_x509_key_file(handle, chain, key, GNUTLS_X509_FMT_PEM)
                if result < 0 {
                    throw QuicError.tls(function: "load certificate \(chain) with key \(key)", message: TLSCredentials.errorText(result))
                }
            }
            if let ca = config.trustedCAPath {
                let count = gnutls_certificate_set_x509_trust_file(handle, ca, GNUTLS_X509_FMT_PEM)
                if count <= 0 {
                    let why = count == 0 ? "no certificate found" : TLSCredentials.errorText(count)
                    throw QuicError.tls(function: "load CA file \(ca)", message: why)
                }
            }
        } catch {
            gnutls_certificate_free_credentials(handle)
            throw error
        }
        var priority: gnutls_priority_t?
        let parsed = gnutls_priority_init(&priority, TLSCredentials.priorityString, nil)
        guard parsed >= 0, let priority else {
            gnutls_certificate_free_credentials(handle)
            throw QuicError.tls(function: "gnutls_priority_init", message: TLSCredentials.errorText(parsed))
        }
        self.handle = handle!
        self.priority = priority
        hasTrustAnchors = config.trustedCAPath != nil
        ticketKey = ticketKeyMaterial.map { material in
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: material.count)
            bytes.initialize(from: material, count: material.count)
            let datum = UnsafeMutablePointer<gnutls_datum_t>.allocate(capacity: 1)
            datum.initialize(to: gnutls_datum_t(data: bytes, size: UInt32(material.count)))
            return datum
        }
    }

    deinit {
        gnutls_certificate_free_credentials(handle)
        gnutls_priority_deinit(priority)
        if let ticketKey {
            if let data = ticketKey.pointee.data {
                data.update(repeating: 0, count: Int(ticketKey.pointee.size))
                data.deallocate()
            }
            ticketKey.deallocate()
        }
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: gnutls_strerror(code))
    }

    static func check(_ code: Int32, _ function: String) throws {
        if code < 0 { throw QuicError.tls(function: function, message: errorText(code)) }
    }
}
