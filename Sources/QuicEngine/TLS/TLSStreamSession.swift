internal import CQuic
import Glibc
import RuntimeCore

/// A sans-IO TLS client session over a byte stream (TLS over TCP). Bytes in, bytes out, no
/// socket: feed received ciphertext with `receive`, queue plaintext with `send`, call `process()`
/// after either, then take plaintext with `readPlaintext` and write ciphertext with
/// `writeCiphertext`. Plaintext queued during the handshake goes out once it completes.
/// Used from one thread.
public final class TLSStreamSession {
    public enum State: Equatable, Sendable {
        case handshaking
        case established
        /// The peer sent close_notify (or we closed): nothing more is read or written.
        case closed
    }

    public private(set) var state = State.handshaking
    private let context: TLSStreamContext
    private let transport = TLSStreamTransport()
    private let handle: gnutls_session_t
    /// GnuTLS keeps the pointer given to gnutls_session_set_verify_cert, so it lives as long as we do.
    private var verifiedName: UnsafeMutablePointer<CChar>?
    private var plaintextOut: [UInt8] = []
    private var plaintextIn: [UInt8] = []

    public init(context: TLSStreamContext) throws {
        self.context = context
        var session: gnutls_session_t?
        try TLSCredentials.check(gnutls_init(&session, GNUTLS_CLIENT.rawValue | GNUTLS_NONBLOCK.rawValue), "gnutls_init")
        handle = session!
        do {
            try configure(context.configuration)
        } catch {
            gnutls_deinit(handle)
            throw error
        }
        transport.install(on: handle)
    }

    deinit {
        gnutls_deinit(handle)
        free(verifiedName)
    }

    private func configure(_ configuration: TLSStreamConfiguration) throws {
        try TLSCredentials.check(gnutls_priority_set_direct(handle, configuration.priority, nil), "gnutls_priority_set_direct")
        try TLSCredentials.check(gnutls_credentials_set(handle, GNUTLS_CRD_CERTIFICATE, UnsafeMutableRawPointer(context.credentials.handle)),
                                 "gnutls_credentials_set")
        if let name = configuration.serverName, !name.isEmpty, SocketAddress(host: name, port: 0) == nil {
            try TLSCredentials.check(gnutls_server_name_set(handle, GNUTLS_NAME_DNS, name, name.utf8.count), "gnutls_server_name_set")
        }
        if !configuration.insecureSkipVerification {
            verifiedName = configuration.serverName.map { strdup($0) }
            gnutls_session_set_verify_cert(handle, verifiedName, 0)
        }
        // The caller owns time: a handshake that stalls is its timeout to enforce, not GnuTLS's.
        gnutls_handshake_set_timeout(handle, 0)
    }

    // MARK: Bytes in

    /// Ciphertext read from the socket.
    public func receive(_ ciphertext: UnsafeRawBufferPointer) {
        transport.append(received: ciphertext)
    }

    /// Plaintext to send; it is encrypted by the next `process()`.
    public func send(_ plaintext: some Collection<UInt8>) {
        plaintextOut.append(contentsOf: plaintext)
    }

    /// Sends close_notify; afterwards nothing is read or sent.
    public func close() {
        guard state != .closed else { return }
        if state == .established { _ = gnutls_bye(handle, GNUTLS_SHUT_WR) }
        state = .closed
    }

    // MARK: Work

    /// Advances the handshake, decrypts whatever records have arrived and encrypts queued
    /// plaintext. Throws `QuicError.tls` when the handshake or a record fails (a certificate that
    /// does not verify names why); the session is unusable afterwards.
    public func process() throws {
        if state == .handshaking {
            let result = gnutls_handshake(handle)
            if result == GNUTLS_E_AGAIN || result == GNUTLS_E_INTERRUPTED { return }
            if result < 0 {
                state = .closed
                throw QuicError.tls(function: "handshake", message: failureText(result))
            }
            state = .established
        }
        guard state == .established else { return }
        try decryptReceived()
        try encryptQueued()
    }

    private func decryptReceived() throws {
        var stalled = false
        while state == .established {
            let unread = (transport.inboundAvailable, gnutls_record_check_pending(handle))
            let count = gnutls_record_recv(handle, context.scratch, TLSStreamContext.scratchSize)
            if count > 0 {
                plaintextIn.append(contentsOf: UnsafeRawBufferPointer(start: context.scratch, count: count))
                stalled = false
            } else if count == 0 {
                state = .closed
            } else if Int32(count) == GNUTLS_E_AGAIN || Int32(count) == GNUTLS_E_INTERRUPTED {
                // A post-handshake message (a TLS 1.3 session ticket) also ends in EAGAIN, with
                // records read behind it: go on while input is left and the last call used some.
                let progressed = unread != (transport.inboundAvailable, gnutls_record_check_pending(handle))
                let more = transport.inboundAvailable > 0 || gnutls_record_check_pending(handle) > 0
                if !more || (!progressed && stalled) { return }
                stalled = !progressed
            } else if gnutls_error_is_fatal(Int32(count)) == 0 {
                continue  // a warning alert or a post-handshake message: the next record follows
            } else {
                state = .closed
                throw QuicError.tls(function: "gnutls_record_recv", message: TLSCredentials.errorText(Int32(count)))
            }
        }
    }

    private func encryptQueued() throws {
        var offset = 0
        defer { plaintextOut.removeFirst(offset) }
        while offset < plaintextOut.count {
            let sent = plaintextOut.withUnsafeBytes { bytes in
                gnutls_record_send(handle, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if sent > 0 {
                offset += sent
            } else if Int32(sent) == GNUTLS_E_AGAIN || Int32(sent) == GNUTLS_E_INTERRUPTED {
                return  // a memory transport takes everything, so this is not expected; the rest waits for the next call
            } else {
                state = .closed
                throw QuicError.tls(function: "gnutls_record_send", message: TLSCredentials.errorText(Int32(sent)))
            }
        }
    }

    private func failureText(_ code: Int32) -> String {
        if code == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR {
            let status = gnutls_session_get_verify_cert_status(handle)
            var text = gnutls_datum_t()
            if gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) == 0, let data = text.data {
                defer { cgnutls_free(data) }
                return "certificate verification failed: " + String(decoding: UnsafeBufferPointer(start: data, count: Int(text.size)), as: UTF8.self)
            }
        }
        if code == GNUTLS_E_FATAL_ALERT_RECEIVED, let name = gnutls_alert_get_name(gnutls_alert_get(handle)) {
            return "the server sent the alert \(String(cString: name))"
        }
        return TLSCredentials.errorText(code)
    }

    // MARK: Bytes out

    /// Appends the plaintext decrypted so far to `buffer` and forgets it.
    public func readPlaintext(into buffer: inout [UInt8]) {
        guard !plaintextIn.isEmpty else { return }
        buffer.append(contentsOf: plaintextIn)
        plaintextIn.removeAll(keepingCapacity: true)
    }

    /// Ciphertext waiting to be written.
    public var pendingCiphertext: Int { transport.outbound.count }

    /// Hands the pending ciphertext to `write`, which returns how much it wrote (0 when the
    /// socket is full); the rest stays for the next call.
    public func writeCiphertext(_ write: (UnsafeRawBufferPointer) throws -> Int) rethrows {
        guard !transport.outbound.isEmpty else { return }
        let written = try transport.outbound.withUnsafeBytes { try write($0) }
        if written >= transport.outbound.count {
            transport.outbound.removeAll(keepingCapacity: true)
        } else if written > 0 {
            transport.outbound.removeFirst(written)
        }
    }

    /// The negotiated protocol, key exchange, certificate and cipher, e.g.
    /// "(TLS1.3)-(ECDHE-SECP256R1)-(ECDSA-SECP256R1-SHA256)-(AES-128-GCM)"; nil before the handshake.
    public var negotiatedDescription: String? {
        guard state == .established, let text = gnutls_session_get_desc(handle) else { return nil }
        defer { cgnutls_free(text) }
        return String(cString: text)
    }
}
