internal import CQuic
import Glibc

/// GnuTLS certificate credentials loaded once per endpoint and shared by all its sessions.
final class TLSCredentials {
    let handle: gnutls_certificate_credentials_t
    let hasTrustAnchors: Bool

    init(_ config: QuicTLSConfiguration) throws {
        var handle: gnutls_certificate_credentials_t?
        try TLSCredentials.check(gnutls_certificate_allocate_credentials(&handle), "gnutls_certificate_allocate_credentials")
        self.handle = handle!
        if let chain = config.certificateChainPath {
            guard let key = config.privateKeyPath else {
                gnutls_certificate_free_credentials(handle)
                throw QuicError.invalidConfiguration("a certificate needs its private key")
            }
            let result = gnutls_certificate_set_x509_key_file(handle, chain, key, GNUTLS_X509_FMT_PEM)
            if result < 0 {
                gnutls_certificate_free_credentials(handle)
                throw QuicError.tls(function: "load certificate \(chain) with key \(key)", message: TLSCredentials.errorText(result))
            }
        }
        if let ca = config.trustedCAPath {
            let count = gnutls_certificate_set_x509_trust_file(handle, ca, GNUTLS_X509_FMT_PEM)
            if count <= 0 {
                gnutls_certificate_free_credentials(handle)
                let why = count == 0 ? "no certificate found" : TLSCredentials.errorText(count)
                throw QuicError.tls(function: "load CA file \(ca)", message: why)
            }
            hasTrustAnchors = true
        } else {
            hasTrustAnchors = false
        }
    }

    deinit { gnutls_certificate_free_credentials(handle) }

    static func errorText(_ code: Int32) -> String {
        String(cString: gnutls_strerror(code))
    }

    static func check(_ code: Int32, _ function: String) throws {
        if code < 0 { throw QuicError.tls(function: function, message: errorText(code)) }
    }
}
