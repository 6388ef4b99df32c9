internal import CQuic
import Glibc
import RuntimeCore

/// One GnuTLS session configured for QUIC by ngtcp2_crypto_gnutls.
final class TLSSession {
    let handle: gnutls_session_t
    let credentials: TLSCredentials
    /// GnuTLS keeps the pointer given to gnutls_session_set_verify_cert, so it lives as long as we do.
    private var verifiedName: UnsafeMutablePointer<CChar>?
    /// A client's policy when GnuTLS's own CA check is not the whole of it.
    private var serverCertificatePolicy: ServerCertificatePolicy?
    /// What ``checkServerCertificate`` found, for the connection to copy out.
    private(set) var serverCertificateVerdict: ServerCertificateVerdict?

    init(isServer: Bool, credentials: TLSCredentials, config: QuicTLSConfiguration, serverName: String?,
         connectionRef: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>) throws {
        self.credentials = credentials
        var session: gnutls_session_t?
        let flags = (isServer ? GNUTLS_SERVER.rawValue : GNUTLS_CLIENT.rawValue) | GNUTLS_NO_END_OF_EARLY_DATA.rawValue
        try TLSCredentials.check(gnutls_init(&session, flags), "gnutls_init")
        handle = session!
        do {
            try configure(isServer: isServer, config: config, serverName: serverName)
        } catch {
            gnutls_deinit(handle)
            throw error
        }
        gnutls_session_set_ptr(handle, connectionRef)
    }

    private func configure(isServer: Bool, config: QuicTLSConfiguration, serverName: String?) throws {
        try TLSCredentials.check(
            isServer ? ngtcp2_crypto_gnutls_configure_server_session(handle)
                : ngtcp2_crypto_gnutls_configure_client_session(handle),
            "ngtcp2_crypto_gnutls_configure_session")
        try TLSCredentials.check(gnutls_priority_set(handle, credentials.priority), "gnutls_priority_set")
        try TLSCredentials.check(gnutls_credentials_set(handle, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(credentials.handle)),
                                 "gnutls_credentials_set")
        try setALPN(config.alpn)
        if isServer {
            if let ticketKey = credentials.ticketKey {
                try TLSCredentials.check(gnutls_session_ticket_enable_server(handle, ticketKey), "gnutls_session_ticket_enable_server")
            }
            if credentials.hasTrustAnchors {
                gnutls_certificate_server_set_request(handle, GNUTLS_CERT_REQUIRE)
                gnutls_session_set_verify_cert(handle, nil, 0)
            } else if config.requestClientCertificate {
                // No verify function: any certificate is taken, its CertificateVerify (checked by
                // GnuTLS in every TLS 1.3 handshake) proving the client holds the key.
                gnutls_certificate_server_set_request(handle, GNUTLS_CERT_REQUEST)
            }
        } else {
            if let name = serverName, !name.isEmpty {
                if SocketAddress(host: name, port: 0) == nil {
                    try TLSCredentials.check(gnutls_server_name_set(handle, GNUTLS_NAME_DNS, name, name.utf8.count),
                                             "gnutls_server_name_set")
                }
            }
            if !config.insecureSkipVerification {
                verifiedName = serverName.map { strdup($0) }
                switch config.serverCertificatePolicy {
                case .certificateAuthority:
                    guard credentials.hasTrustAnchors else {
                        throw QuicError.invalidConfiguration("a client that verifies the server needs a CA file (or the insecure switch)")
                    }
                    gnutls_session_set_verify_cert(handle, verifiedName, 0)
                case .pinned, .firstUse:
                    serverCertificatePolicy = config.serverCertificatePolicy
                    gnutls_session_set_verify_function(handle, TLSSession.checkServerCertificate)
                }
            }
            if let ticket = config.resumptionTicket, !ticket.isEmpty {
                // A ticket GnuTLS cannot use (corrupt, of another library version) is no error:
                // the handshake is then a full one.
                _ = ticket.withUnsafeBytes { gnutls_session_set_data(handle, $0.baseAddress, $0.count) }
            }
            gnutls_handshake_set_hook_function(handle, UInt32(GNUTLS_HANDSHAKE_NEW_SESSION_TICKET.rawValue),
                                               Int32(GNUTLS_HOOK_POST), TLSSession.ticketArrived)
        }
    }

    /// GnuTLS calls this after a NewSessionTicket from the server: the session data that lets a
    /// later connection resume go to the connection, which outlives this session for the
    /// application to read. Nothing else happens in here.
    private static let ticketArrived: gnutls_handshake_hook_func = { session, _, _, _, _ in
        guard let session, let reference = gnutls_session_get_ptr(session)?.assumingMemoryBound(to: ngtcp2_crypto_conn_ref.self),
              let userData = reference.pointee.user_data else { return 0 }
        var data = gnutls_datum_t()
        guard gnutls_session_get_data2(session, &data) == 0, let bytes = data.data else { return 0 }
        defer { cgnutls_free(bytes) }
        QuicConnection.from(userData).sessionTicket = Array(UnsafeBufferPointer(start: bytes, count: Int(data.size)))
        return 0
    }

    /// GnuTLS calls this with the server's Certificate and CertificateVerify checked (the server
    /// holds the key of the certificate it sent): applies the policy set up front and records
    /// what it found on this session. Returning non-zero ends the handshake before the client
    /// sends its own certificate or any application data.
    private static let checkServerCertificate: @convention(c) (gnutls_session_t?) -> Int32 = { session in
        guard let session, let reference = gnutls_session_get_ptr(session)?.assumingMemoryBound(to: ngtcp2_crypto_conn_ref.self),
              let userData = reference.pointee.user_data, let tls = QuicConnection.from(userData).tls,
              let policy = tls.serverCertificatePolicy else { return -1 }
        guard let presented = tls.peerCertificateFingerprint else { return -1 }
        let verdict: ServerCertificateVerdict
        switch policy {
        case .pinned(let pin):
            verdict = presented == pin ? .pinned : .changed(pinned: pin, presented: presented)
        case .firstUse:
            var status: UInt32 = 0
            let signed = tls.credentials.hasTrustAnchors && gnutls_certificate_verify_peers3(session, tls.verifiedName, &status) == 0
                && status == 0
            verdict = signed ? .signedByCA : .unknown(presented: presented)
        case .certificateAuthority:
            return -1
        }
        tls.serverCertificateVerdict = verdict
        return verdict.isAccepted ? 0 : -1
    }

    /// The handshake resumed an earlier session (a ticket was offered and accepted).
    var isResumed: Bool { gnutls_session_is_resumed(handle) != 0 }

    private func setALPN(_ protocols: [String]) throws {
        guard !protocols.isEmpty else { return }
        var storage = protocols.map { Array($0.utf8) }
        var datums: [gnutls_datum_t] = []
        for index in storage.indices {
            datums.append(storage[index].withUnsafeMutableBufferPointer {
                gnutls_datum_t(data: $0.baseAddress, size: UInt32($0.count))
            })
        }
        // GnuTLS copies the protocol names during this call.
        let result = withExtendedLifetime(storage) {
            gnutls_alpn_set_protocols(handle, &datums, UInt32(datums.count), UInt32(GNUTLS_ALPN_MANDATORY.rawValue))
        }
        storage.removeAll()
        try TLSCredentials.check(result, "gnutls_alpn_set_protocols")
    }

    deinit {
        gnutls_deinit(handle)
        free(verifiedName)
    }

    var negotiatedALPN: String? {
        var datum = gnutls_datum_t()
        guard gnutls_alpn_get_selected_protocol(handle, &datum) == 0, let data = datum.data else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(datum.size)), as: UTF8.self)
    }

    /// The distinguished name of the peer's verified certificate, when it sent one.
    var peerCertificateSubject: String? {
        var count: UInt32 = 0
        guard let list = gnutls_certificate_get_peers(handle, &count), count > 0 else { return nil }
        var certificate: gnutls_x509_crt_t?
        guard gnutls_x509_crt_init(&certificate) == 0 else { return nil }
        defer { gnutls_x509_crt_deinit(certificate) }
        var first = list[0]
        guard gnutls_x509_crt_import(certificate, &first, GNUTLS_X509_FMT_DER) == 0 else { return nil }
        var name = gnutls_datum_t()
        guard gnutls_x509_crt_get_dn3(certificate, &name, 0) == 0, let data = name.data else { return nil }
        defer { cgnutls_free(data) }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(name.size)), as: UTF8.self)
    }

    /// The SHA-256 of the peer's first certificate (its DER encoding), as 64 lowercase hex digits,
    /// when it sent one.
    var peerCertificateFingerprint: String? {
        var count: UInt32 = 0
        guard let list = gnutls_certificate_get_peers(handle, &count), count > 0 else { return nil }
        var first = list[0]
        return TLSIdentity.sha256Fingerprint(of: &first)
    }

    /// Why certificate verification failed, in GnuTLS's words (or the policy's); nil when it did not fail.
    var verificationFailure: String? {
        switch serverCertificateVerdict {
        case .unknown(let presented)?:
            return "the server's certificate sha256:\(presented) is not signed by a trusted CA and not known (trust on first use)"
        case .changed(let pinned, let presented)?:
            return "the server's certificate sha256:\(presented) is not the one pinned for it (sha256:\(pinned))"
        default:
            break
        }
        let status = gnutls_session_get_verify_cert_status(handle)
        guard status != 0 else { return nil }
        var text = gnutls_datum_t()
        guard gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) == 0,
              let data = text.data else { return "certificate verification failed (status \(status))" }
        defer { cgnutls_free(data) }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(text.size)), as: UTF8.self)
    }

    static func alertName(_ alert: UInt8) -> String {
        guard let name = gnutls_alert_get_name(gnutls_alert_description_t(UInt32(alert))) else { return "alert \(alert)" }
        return String(cString: name)
    }
}
