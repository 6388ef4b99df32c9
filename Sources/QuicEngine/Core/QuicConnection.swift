internal import CQuic
import Glibc
import RuntimeCore

/// One QUIC connection, client or server, driven without I/O: its endpoint hands it datagrams and
/// the time, and takes packets and the next deadline from it. All calls happen on one thread.
public final class QuicConnection {
    enum Phase {
        case handshaking
        case established
        /// We sent CONNECTION_CLOSE; we answer further packets with it until the deadline.
        case closing(until: MonotonicTime)
        /// The peer closed; we stay silent until the deadline (RFC 9000 section 10.2.2).
        case draining(until: MonotonicTime)
        case closed
    }

    /// Unique within the endpoint; handy as a dictionary key for applications.
    public let id: UInt64
    public let isServer: Bool
    /// Free for the application: the object it keeps for this connection.
    public var context: AnyObject?
    /// When true, delivered stream bytes no longer open the peer's flow-control window: the peer
    /// sees a reader that stopped reading (for slow-consumer tests and load tools).
    public var holdsReceiveWindow = false

    unowned let endpoint: QuicEndpoint
    let configuration: QuicConfiguration
    /// ngtcp2's connection. Every call into ngtcp2 reads it here, so this is where the pages an
    /// idle spell set aside come back (``setAsideIdleMemory()``) and where use is noticed.
    var raw: OpaquePointer? {
        get {
            if isSetAside { restoreIdleMemory() }
            wasUsedSinceIdleCheck = true
            return ngtcp2Connection
        }
        set { ngtcp2Connection = newValue }
    }
    private var ngtcp2Connection: OpaquePointer?
    /// ngtcp2's allocator for `raw`; outlives it, to free what ngtcp2 0.12.1 loses (see CQuic.h).
    var memory: OpaquePointer?
    /// The pages of ngtcp2's state are set aside (see ``setAsideIdleMemory()``).
    private(set) var isSetAside = false
    /// `raw` was read since the endpoint last looked at whether the connection is idle.
    var wasUsedSinceIdleCheck = false
    /// The connection is in the endpoint's queue of connections that may go idle.
    var awaitsIdleCheck = false
    var tls: TLSSession?
    /// Client: the session data of the server's latest session ticket, for
    /// ``QuicTLSConfiguration/resumptionTicket`` of a later connection to the same server. It stays
    /// readable after the connection closed.
    public internal(set) var sessionTicket: [UInt8]?
    /// The handshake resumed an earlier session instead of a full one with certificates. A
    /// server's GnuTLS says so only once the handshake has settled, so it is asked when the
    /// application sees the handshake complete, and kept.
    public internal(set) var resumedSession = false
    let connectionRef: UnsafeMutablePointer<ngtcp2_crypto_conn_ref>
    var phase: Phase = .handshaking
    public internal(set) var localAddress: SocketAddress
    public internal(set) var remoteAddress: SocketAddress
    public internal(set) var closeReason: QuicCloseReason?
    public internal(set) var negotiatedALPN: String?
    public internal(set) var peerCertificateSubject: String?
    /// The SHA-256 of the peer's certificate, 64 lowercase hex digits; nil when it sent none.
    public internal(set) var peerCertificateFingerprint: String?
    /// Client with a ``ServerCertificatePolicy`` other than `certificateAuthority`: what the
    /// handshake's check of the server certificate found, also when it refused it; nil before
    /// the check, and on a resumed session (which keeps the trust of the session it resumes).
    public internal(set) var serverCertificateVerdict: ServerCertificateVerdict?

    /// With ``QuicConfiguration/silenceTimeout``: since when something sent has waited for the
    /// peer's acknowledgement with nothing received (nil: nothing waits, or the peer answered since).
    var awaitingAnswerSince: MonotonicTime?

    var streams = StreamTable()
    /// Interactive streams with data to send, served round-robin before any bulk stream.
    var sendQueue: [QuicStreamID] = []
    /// Bulk streams with data to send, round-robin among themselves (``markBulk(_:)``).
    var bulkSendQueue: [QuicStreamID] = []
    /// Open bulk streams: while there is none, delivered bytes open every window at once with no
    /// lookup of the stream.
    var bulkStreamCount = 0
    /// How much of the peer's connection credit bulk data leaves for interactive streams; set
    /// once the peer's transport parameters are known.
    var bulkCreditReserve: UInt64?
    var datagramQueue = FIFOQueue<[UInt8]>()
    var closingPacket: [UInt8] = []
    var closingPacketDue = false
    var packetsWhileClosing = 0
    var receivedStatelessReset = false
    /// A close the application asked for, written after the packets ngtcp2 still owes.
    var pendingClose: (code: UInt64, reason: [UInt8])?
    var routingIDs: Set<ConnectionID> = []
    /// Packets with STREAM frames declared lost, of streams already closed.
    var lostPacketsOfClosedStreams = 0
    var stash: (bytes: [UInt8], local: SocketAddress, remote: SocketAddress)?
    /// The last `writeBatch` ended with nothing left to send: the endpoint need not ask again
    /// until something new (input, a timer, the application) makes the connection dirty.
    var isDrained = false
    /// The peer confirmed the handshake (a client got HANDSHAKE_DONE; a server, once complete).
    var isHandshakeConfirmed = false
    /// When the last packet left, in nanoseconds of ``MonotonicTime`` (the coalescing window's start).
    var lastPacketSentAt: UInt64 = 0
    /// When the application last queued interactive stream data (whether a hold may pay off);
    /// `.max` before the first write, so that one is never judged recent.
    var lastWriteAt: UInt64 = .max
    /// Stream data written since the last packet waits until then (``holdForCoalescing()``);
    /// `.max` when nothing is held.
    var heldUntil: UInt64 = .max
    /// An ACK owed waits until then (``holdAcknowledgement()``); `.max` when none waits.
    var acknowledgementHeldUntil: UInt64 = .max
    /// Datagrams read since our last packet left: how many packets an ACK sent now would cover.
    var datagramsSinceLastPacket = 0
    /// A datagram of at least 1,200 bytes was read since our last packet left: bulk data (whose
    /// sender's window grows with our ACKs) or a PATH_CHALLENGE (which RFC 9000 section 8.2.1
    /// pads to that size), neither of which an ACK hold may delay.
    var fullSizeDatagramSinceLastPacket = false

    // Endpoint bookkeeping.
    var scheduledDeadline: UInt64 = .max
    var isDirty = false
    var isRemoved = false
    /// Events of a new server connection while its first datagram is read: the application
    /// hears of the connection only once that datagram proved to be real QUIC (see accept).
    var heldEvents: [QuicEvent]?
    /// A server connection counted in the endpoint's handshakes in progress.
    var countsAsHandshake = false
    /// The client address this server connection counts against (``QuicServerConfiguration/maxConnectionsPerAddress``).
    var countedAddress: SocketAddress?

    init(endpoint: QuicEndpoint, id: UInt64, isServer: Bool, configuration: QuicConfiguration,
         local: SocketAddress, remote: SocketAddress) {
        self.endpoint = endpoint
        self.id = id
        self.isServer = isServer
        self.configuration = configuration
        self.localAddress = local
        self.remoteAddress = remote
        memory = cquic_conn_memory_new()
        connectionRef = .allocate(capacity: 1)
        connectionRef.initialize(to: ngtcp2_crypto_conn_ref(get_conn: { reference in
            guard let reference else { return nil }
            return Unmanaged<QuicConnection>.fromOpaque(reference.pointee.user_data).takeUnretainedValue().raw
        }, user_data: nil))
        connectionRef.pointee.user_data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        release()
        connectionRef.deallocate()
    }

    /// A server's TLS session is of no use once its handshake is done and its session ticket is
    /// out (both happen before the application hears of the handshake): QUIC carries no further
    /// TLS message from the client, packet protection and key updates are ngtcp2's. Freeing it
    /// then is the memory of a GnuTLS session less per idle connection. What the application
    /// may ask about the handshake was copied out when it completed.
    func releaseTLSAfterHandshake() {
        guard isServer, let raw, tls != nil else { return }
        ngtcp2_conn_set_tls_native_handle(raw, nil)
        tls = nil
    }

    /// Scratch buffers threads keep from one set-aside to the next (one per thread that has set
    /// memory aside, freed when the thread ends).
    static var setAsideScratchBuffers: Int { Int(cquic_conn_memory_scratch_buffers()) }

    /// An idle connection's ngtcp2 state is mostly untouched pages with a few hundred written
    /// bytes at the start of each block: those bytes are copied onto the heap and the pages
    /// handed back to the kernel (CQuic's `cquic_conn_memory_set_aside`). Nothing reads the
    /// state until `raw` is read again, which puts them back first. Returns the bytes given back.
    @discardableResult
    func setAsideIdleMemory() -> Int {
        guard let memory, ngtcp2Connection != nil, !isSetAside else { return 0 }
        let released = cquic_conn_memory_set_aside(memory)
        isSetAside = cquic_conn_memory_is_set_aside(memory) != 0
        return Int(released)
    }

    private func restoreIdleMemory() {
        if let memory { cquic_conn_memory_restore(memory) }
        isSetAside = false
        endpoint.statistics.idleMemoryRestores += 1
    }

    /// Frees the C state as soon as the endpoint forgets the connection, not when the last
    /// application reference goes.
    func release() {
        // Not through `raw`: this runs in deinit too, when the endpoint may be gone.
        if let memory, isSetAside {
            cquic_conn_memory_restore(memory)
            isSetAside = false
        }
        if let ngtcp2Connection {
            ngtcp2_conn_del(ngtcp2Connection)
            self.ngtcp2Connection = nil
        }
        if let memory {
            cquic_conn_memory_free(memory)
            self.memory = nil
        }
        tls = nil
        streams.removeAll()
        datagramQueue.removeAll()
        stash = nil
    }

    var now: MonotonicTime { endpoint.now }

    public var isEstablished: Bool { if case .established = phase { return true } else { return false } }

    /// True once the connection can no longer send application data.
    public var isClosed: Bool {
        switch phase {
        case .handshaking, .established: return false
        case .closing, .draining, .closed: return true
        }
    }

    var isUsable: Bool { !isClosed && ngtcp2Connection != nil && pendingClose == nil }

    func emit(_ event: QuicEvent) {
        if heldEvents != nil { heldEvents?.append(event) } else { endpoint.enqueue(event, for: self) }
    }
}
