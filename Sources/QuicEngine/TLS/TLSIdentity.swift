internal import CQuic
import Digest
import Glibc

/// A TLS identity of its own for a client: an ECDSA P-256 key and a self-signed certificate,
/// made with GnuTLS. A server that requests client certificates (``QuicTLSConfiguration/requestClientCertificate``)
/// takes the certificate's SHA-256 fingerprint as who the client is, as SSH takes a public key:
/// no CA is involved, the TLS handshake proves the client holds the key.
public enum TLSIdentity {
    /// What a certificate is for (its extended key usage).
    public enum Purpose: Sendable {
        /// TLS client authentication (a chat-client's identity).
        case client
        /// TLS server authentication (`chat-server --self-signed`).
        case server

        var keyPurposeOID: String { self == .client ? "1.3.6.1.5.5.7.3.2" : "1.3.6.1.5.5.7.3.1" }
    }

    /// A new key and a self-signed certificate for it (`CN=commonName`, for `purpose`, valid
    /// from a day ago for `validDays`), as one PEM text: the private key, then the certificate.
    /// The caller writes it where only its user can read it (mode 0600, ``ensureFile(at:commonName:purpose:)``);
    /// the file serves as both ``QuicTLSConfiguration/certificateChainPath`` and `privateKeyPath`.
    public static func makeSelfSigned(commonName: String, validDays: Int = 20 * 365, purpose: Purpose = .client) throws -> String {
        var key: gnutls_x509_privkey_t?
        try TLSCredentials.check(gnutls_x509_privkey_init(&key), "gnutls_x509_privkey_init")
        defer { gnutls_x509_privkey_deinit(key) }
        try TLSCredentials.check(
            gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, cgnutls_curve_to_bits(GNUTLS_ECC_CURVE_SECP256R1), 0),
            "gnutls_x509_privkey_generate")

        var certificate: gnutls_x509_crt_t?
        try TLSCredentials.check(gnutls_x509_crt_init(&certificate), "gnutls_x509_crt_init")
        defer { gnutls_x509_crt_deinit(certificate) }
        try TLSCredentials.check(gnutls_x509_crt_set_version(certificate, 3), "gnutls_x509_crt_set_version")
        var serial = [UInt8](repeating: 0, count: 16)
        try TLSCredentials.check(gnutls_rnd(GNUTLS_RND_NONCE, &serial, serial.count), "gnutls_rnd")
        serial[0] &= 0x7F  // a positive serial number
        try TLSCredentials.check(gnutls_x509_crt_set_serial(certificate, serial, serial.count), "gnutls_x509_crt_set_serial")
        let now = time(nil)
        // A day back: a client whose clock is a little ahead of the server's is still valid.
        try TLSCredentials.check(gnutls_x509_crt_set_activation_time(certificate, now - 86_400), "gnutls_x509_crt_set_activation_time")
        try TLSCredentials.check(gnutls_x509_crt_set_expiration_time(certificate, now + time_t(validDays) * 86_400),
                                 "gnutls_x509_crt_set_expiration_time")
        try TLSCredentials.check(
            gnutls_x509_crt_set_dn_by_oid(certificate, "2.5.4.3", 0, commonName, UInt32(commonName.utf8.count)),
            "gnutls_x509_crt_set_dn_by_oid")
        try TLSCredentials.check(gnutls_x509_crt_set_key(certificate, key), "gnutls_x509_crt_set_key")
        try TLSCredentials.check(gnutls_x509_crt_set_basic_constraints(certificate, 0, -1), "gnutls_x509_crt_set_basic_constraints")
        try TLSCredentials.check(gnutls_x509_crt_set_key_usage(certificate, UInt32(GNUTLS_KEY_DIGITAL_SIGNATURE)),
                                 "gnutls_x509_crt_set_key_usage")
        // GNUTLS_KP_TLS_WWW_CLIENT or GNUTLS_KP_TLS_WWW_SERVER.
        try TLSCredentials.check(gnutls_x509_crt_set_key_purpose_oid(certificate, purpose.keyPurposeOID, 0),
                                 "gnutls_x509_crt_set_key_purpose_oid")
        try TLSCredentials.check(gnutls_x509_crt_sign2(certificate, certificate, key, GNUTLS_DIG_SHA256, 0), "gnutls_x509_crt_sign2")

        var keyPEM = gnutls_datum_t()
        try TLSCredentials.check(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &keyPEM), "gnutls_x509_privkey_export2")
        defer { cgnutls_free(keyPEM.data) }
        var certificatePEM = gnutls_datum_t()
        try TLSCredentials.check(gnutls_x509_crt_export2(certificate, GNUTLS_X509_FMT_PEM, &certificatePEM), "gnutls_x509_crt_export2")
        defer { cgnutls_free(certificatePEM.data) }
        return text(of: keyPEM) + text(of: certificatePEM)
    }

    /// The SHA-256 fingerprint (64 lowercase hex digits) of the first certificate in a PEM text,
    /// as a server sees it in ``QuicConnection/peerCertificateFingerprint``.
    public static func fingerprint(ofPEM pem: String) throws -> String {
        var bytes = Array(pem.utf8)
        var certificate: gnutls_x509_crt_t?
        try TLSCredentials.check(gnutls_x509_crt_init(&certificate), "gnutls_x509_crt_init")
        defer { gnutls_x509_crt_deinit(certificate) }
        let imported = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var datum = gnutls_datum_t(data: buffer.baseAddress, size: UInt32(buffer.count))
            return gnutls_x509_crt_import(certificate, &datum, GNUTLS_X509_FMT_PEM)
        }
        try TLSCredentials.check(imported, "gnutls_x509_crt_import")
        var der = gnutls_datum_t()
        try TLSCredentials.check(gnutls_x509_crt_export2(certificate, GNUTLS_X509_FMT_DER, &der), "gnutls_x509_crt_export2")
        defer { cgnutls_free(der.data) }
        guard let fingerprint = sha256Fingerprint(of: &der) else {
            throw QuicError.tls(function: "gnutls_fingerprint", message: "no fingerprint")
        }
        return fingerprint
    }

    /// The SHA-256 of a DER certificate as lowercase hex.
    static func sha256Fingerprint(of der: inout gnutls_datum_t) -> String? {
        var digest = [UInt8](repeating: 0, count: 32)
        var size = digest.count
        guard gnutls_fingerprint(GNUTLS_DIG_SHA256, &der, &digest, &size) == 0, size == 32 else { return nil }
        return SHA256.hex(digest)
    }

    private static func text(of datum: gnutls_datum_t) -> String {
        guard let data = datum.data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(datum.size)), as: UTF8.self)
    }
}
