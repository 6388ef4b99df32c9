internal import CQuic
import Glibc

/// The in-memory transport under one GnuTLS stream session: GnuTLS pulls received ciphertext
/// from `inbound` and pushes ciphertext to send onto `outbound`. Its C callbacks only copy bytes
/// and set the session's errno; they never reach the application or call GnuTLS back.
final class TLSStreamTransport {
    /// Received ciphertext; bytes before `inboundOffset` have been read by GnuTLS.
    var inbound: [UInt8] = []
    var inboundOffset = 0
    /// Ciphertext waiting to be written to the socket.
    var outbound: [UInt8] = []
    /// Set once the session exists; the callbacks report EAGAIN through it.
    var session: gnutls_session_t?

    var inboundAvailable: Int { inbound.count - inboundOffset }

    func append(received bytes: UnsafeRawBufferPointer) {
        if inboundOffset == inbound.count {
            inbound.removeAll(keepingCapacity: true)
            inboundOffset = 0
        }
        inbound.append(contentsOf: bytes)
    }

    /// Hands the callbacks to `session`, with this object (unretained: the session object owns
    /// both and frees the GnuTLS session first) as their transport pointer.
    func install(on session: gnutls_session_t) {
        self.session = session
        gnutls_transport_set_ptr(session, Unmanaged.passUnretained(self).toOpaque())
        gnutls_transport_set_pull_function(session, TLSStreamTransport.pull)
        gnutls_transport_set_push_function(session, TLSStreamTransport.push)
        gnutls_transport_set_pull_timeout_function(session, TLSStreamTransport.pullTimeout)
    }

    private static func from(_ pointer: gnutls_transport_ptr_t?) -> TLSStreamTransport? {
        pointer.map { Unmanaged<TLSStreamTransport>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Copies up to `size` received bytes; with none left, EAGAIN (the caller feeds more later).
    private static let pull: gnutls_pull_func = { pointer, data, size in
        guard let transport = from(pointer), let data else { return -1 }
        let count = min(size, transport.inboundAvailable)
        guard count > 0 else {
            gnutls_transport_set_errno(transport.session, EAGAIN)
            return -1
        }
        let copied = transport.inbound.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            data.copyMemory(from: base + transport.inboundOffset, byteCount: count)
            return true
        }
        guard copied else { return -1 }
        transport.inboundOffset += count
        return count
    }

    /// Takes every byte GnuTLS wants sent: memory never pushes back.
    private static let push: gnutls_push_func = { pointer, data, size in
        guard let transport = from(pointer), let data else { return -1 }
        transport.outbound.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
        return size
    }

    /// "Is there data?" without waiting: 1 when received bytes are buffered, else 0.
    private static let pullTimeout: gnutls_pull_timeout_func = { pointer, _ in
        guard let transport = from(pointer) else { return -1 }
        return transport.inboundAvailable > 0 ? 1 : 0
    }
}
