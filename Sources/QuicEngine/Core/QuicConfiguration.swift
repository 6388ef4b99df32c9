import RuntimeCore

/// TLS settings of one side. Paths point to PEM files.
public struct QuicTLSConfiguration: Sendable {
    /// Our certificate chain and key: required for a server, optional for a client (mutual TLS).
    public var certificateChainPath: String?
    public var privateKeyPath: String?
    /// CAs that sign the peer's certificate: a client verifies the server against them; a server
    /// given CAs requires and verifies client certificates.
    public var trustedCAPath: String?
    /// Server only, without `trustedCAPath`: ask every client for a certificate and accept any,
    /// self-signed included (TLS proves the client holds its key; no chain is checked), so the
    /// application can use its fingerprint as an identity. A client may still send none.
    public var requestClientCertificate = false
    /// Client only: skip certificate verification (development only).
    public var insecureSkipVerification = false
    /// Client only, unless `insecureSkipVerification`: how the server's certificate is accepted.
    public var serverCertificatePolicy = ServerCertificatePolicy.certificateAuthority
    /// Client only: the name the server certificate must carry and the SNI sent (a DNS name or an
    /// IP address). Defaults to the host the client connects to.
    public var serverName: String?
    /// Offered (client) or accepted (server) application protocols, in order of preference.
    public var alpn: [String]
    /// Client only: a session ticket an earlier connection to the same server received
    /// (``QuicConnection/sessionTicket``). The handshake then resumes that session (TLS 1.3
    /// PSK with a fresh ECDHE): the server skips its certificate and signature, the client the
    /// verification. A ticket the server no longer accepts costs nothing but a full handshake.
    public var resumptionTicket: [UInt8]?

    public init(
        certificateChainPath: String? = nil, privateKeyPath: String? = nil, trustedCAPath: String? = nil,
        insecureSkipVerification: Bool = false, serverName: String? = nil, alpn: [String]
    ) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
        self.trustedCAPath = trustedCAPath
        self.insecureSkipVerification = insecureSkipVerification
        self.serverName = serverName
        self.alpn = alpn
    }
}

/// Transport settings shared by client and server connections.
public struct QuicConfiguration: Sendable {
    public var tls: QuicTLSConfiguration
    public var idleTimeout: TimeSpan = .seconds(30)
    /// Send a PING after this long without traffic; nil disables keep-alive.
    public var keepAliveInterval: TimeSpan? = nil
    /// An established connection that has sent something the peer must acknowledge (a PING
    /// included) and has received nothing at all for this long is given up: it ends `.dropped`
    /// ("no answer ..."), long before the idle timeout. A client's way to notice a peer that went
    /// silent (a stopped process, a dead host) within seconds; nil: only the idle timeout.
    public var silenceTimeout: TimeSpan? = nil
    public var handshakeTimeout: TimeSpan = .seconds(10)
    /// Our `max_datagram_frame_size` transport parameter; 0 refuses DATAGRAM frames.
    public var maxDatagramFrameSize: UInt64 = 1200
    /// Datagrams waiting to be sent beyond this count are refused with `datagramQueueFull`.
    public var maxQueuedDatagrams = 128
    public var initialMaxData: UInt64 = 1 << 20
    public var initialMaxStreamData: UInt64 = 256 << 10
    /// Receive windows grow up to these limits when the application keeps up.
    public var maxConnectionWindow: UInt64 = 24 << 20
    public var maxStreamWindow: UInt64 = 16 << 20
    public var maxBidirectionalStreams: UInt64 = 16
    /// Bytes a stream keeps unacknowledged before `write` accepts no more.
    public var streamSendBufferLimit = 1 << 20
    public var maxUDPPayloadSize = 1452
    /// How many connection IDs we accept from the peer (spares make migration possible).
    public var activeConnectionIDLimit: UInt64 = 4
    /// The coalescing window (``QuicConnection/holdForCoalescing()``): interactive stream data
    /// written less than half this after the previous write and less than this after the
    /// connection's last packet waits until this long after that packet, and leaves with
    /// whatever else was written meanwhile, several messages a packet. A connection written to
    /// less often sends at once. Zero (the default) never holds.
    /// Datagrams, control frames, bulk data and anything else that makes the connection send
    /// take the held data with them: no byte waits longer than this.
    public var coalescingWindow: TimeSpan = .zero
    /// The acknowledgement hold (``QuicConnection/holdAcknowledgement()``): after a read that
    /// left only an ACK to send, with nothing of ours in flight or queued, the ACK waits until
    /// this long after the first packet it covers, or until the connection writes anything else
    /// or `acknowledgementHoldPackets` packets wait. Keep it well below the max_ack_delay we
    /// advertise (ngtcp2's 25 ms), which the peer's loss recovery already allows for. Zero (the
    /// default) acknowledges on ngtcp2's schedule: min(max_ack_delay, RTT / 8) after a packet,
    /// microseconds on a fast link.
    public var acknowledgementHold: TimeSpan = .zero
    public var acknowledgementHoldPackets = 8
    /// A connection nothing touched for between this long and twice this long has its ngtcp2
    /// state's pages set aside: their written bytes copied compactly onto the heap and the pages
    /// given back to the kernel (``QuicConnection/setAsideIdleMemory()``), put back at its next
    /// datagram, timer or write. Costs a few microseconds each way; nil keeps every page.
    public var idleMemoryDelay: TimeSpan? = .seconds(2)

    public init(tls: QuicTLSConfiguration) { self.tls = tls }
}

/// Settings of an endpoint that accepts connections.
public struct QuicServerConfiguration: Sendable {
    public var connection: QuicConfiguration
    /// Make every new client prove its address with a Retry round trip first.
    public var requireRetry = false
    /// Once this many handshakes are in progress, new clients must prove their address with a
    /// Retry first, until fewer than half as many are: a storm of Initials from spoofed or
    /// silent sources then costs no state.
    public var retryAboveHandshakes = Int.max
    public var retryTokenLifetime: TimeSpan = .seconds(10)
    /// New connections beyond this many are refused with CONNECTION_REFUSED.
    public var maxConnections = 10_000
    /// Connections (handshakes in progress included) from one client address at most, an IPv4
    /// address or an IPv6 /64; beyond it new ones are refused with CONNECTION_REFUSED, so one
    /// address cannot take every slot.
    public var maxConnectionsPerAddress = Int.max
    /// Addresses the per-address limit does not apply to (load generators, local bots).
    public var addressLimitExemptions: [AddressRange] = []
    /// Stateless resets sent per second at most (they answer packets we cannot route).
    public var statelessResetsPerSecond = 100

    public init(connection: QuicConfiguration) { self.connection = connection }
}
