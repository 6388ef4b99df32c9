internal import CQuic
import Glibc

/// A server's secrets and TLS credentials, and what they are bound to.
extension QuicEndpoint {
    /// A server's secrets (for stateless reset and Retry tokens, for session tickets) are derived
    /// from its private key, so a restarted server still recognises its old connection IDs and
    /// tickets: it answers a client of its previous life with a stateless reset, and that client
    /// notices at once instead of after an idle timeout, and reconnects with a resumed handshake.
    /// Each purpose has its own label, and `context` binds a secret to more than the key;
    /// `length` is 32 (SHA-256) or 64 (SHA-512) bytes.
    static func keyMaterial(derivedFrom server: QuicServerConfiguration, label: String, context: [UInt8] = [],
                            length: Int) throws -> [UInt8] {
        guard let path = server.connection.tls.privateKeyPath else { return randomBytes(length) }
        var input = try fileContents(path, what: "private key file") + Array(label.utf8) + context
        defer { input.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        var digest = [UInt8](repeating: 0, count: length)
        let algorithm = length > 32 ? GNUTLS_DIG_SHA512 : GNUTLS_DIG_SHA256
        let result = input.withUnsafeMutableBytes { bytes in
            gnutls_hash_fast(algorithm, bytes.baseAddress, bytes.count, &digest)
        }
        guard result == 0 else { throw QuicError.tls(function: "gnutls_hash_fast", message: TLSCredentials.errorText(result)) }
        return digest
    }

    /// A server's certificate, key and client CA from their files, with the session ticket key
    /// derived from that private key and the client-certificate policy in force.
    static func credentials(for server: QuicServerConfiguration) throws -> TLSCredentials {
        let ticketKey = try QuicEndpoint.keyMaterial(derivedFrom: server, label: "qchat session ticket key v1",
                                                     context: try clientCertificatePolicy(of: server.connection.tls), length: 64)
        return try TLSCredentials(server.connection.tls, ticketKeyMaterial: ticketKey)
    }

    /// What a server asks of client certificates, as bytes for the session ticket key. A resumed
    /// handshake carries no certificate: the client is let in on what the ticket says it proved
    /// when the ticket was issued. So a ticket must only resume under the policy it was issued
    /// under: another client CA (a restart, a reload), or a change between requiring,
    /// requesting and not asking, is another ticket key, every earlier ticket fails to decrypt,
    /// and the client makes a full handshake that shows its certificate to the policy now in
    /// force. The CA file's bytes stand for the CA: the same file keeps every ticket valid.
    static func clientCertificatePolicy(of tls: QuicTLSConfiguration) throws -> [UInt8] {
        if let ca = tls.trustedCAPath {
            return Array("\u{0}client certificates required, verified by:\u{0}".utf8) + (try fileContents(ca, what: "CA file"))
        }
        return Array((tls.requestClientCertificate ? "\u{0}client certificates requested" : "\u{0}no client certificates").utf8)
    }

    /// A whole file's bytes (GnuTLS reads it), for secrets derived from it.
    private static func fileContents(_ path: String, what: String) throws -> [UInt8] {
        var datum = gnutls_datum_t()
        guard gnutls_load_file(path, &datum) == 0, let data = datum.data else {
            throw QuicError.tls(function: "read \(path)", message: "cannot read the \(what)")
        }
        defer { cgnutls_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: Int(datum.size)))
    }
}
