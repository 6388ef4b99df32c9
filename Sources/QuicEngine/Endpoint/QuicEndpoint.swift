internal import CQuic
import Glibc
import RuntimeCore

/// Statistics an endpoint keeps about what reached it.
public struct QuicEndpointStatistics: Sendable {
    public var datagramsReceived = 0
    public var bytesReceived = 0
    public var emptyDatagrams = 0
    public var undecodableDatagrams = 0
    public var unroutableDatagrams = 0
    public var versionNegotiationsSent = 0
    public var statelessResetsSent = 0
    public var retriesSent = 0
    public var invalidTokens = 0
    public var connectionsRefused = 0
    /// Of `connectionsRefused`, those refused because their address had its maximum.
    public var connectionsRefusedPerAddress = 0
    public var connectionsAccepted = 0
    /// Server handshakes completed with certificates, and completed by resuming a session ticket.
    public var handshakesFull = 0
    public var handshakesResumed = 0
    /// Initials whose header parsed but whose first packet did not (bad protection, garbage).
    public var initialsDropped = 0
    /// UDP datagrams (GSO segments counted one by one) and their bytes handed to the driver.
    public var datagramsSent = 0
    public var bytesSent = 0
    /// Packets with STREAM frames declared lost, of connections already removed (see
    /// ``QuicEndpoint/streamPacketsLost``).
    public var streamPacketsLostByRemovedConnections = 0
    /// Holds of the coalescing window begun, and those a write ended before the window did (a
    /// datagram, a control frame, an ACK owed, bulk data: the held data left with it).
    public var coalescingHolds = 0
    public var coalescingHoldsCutShort = 0
    /// ACKs held for ``QuicConfiguration/acknowledgementHold`` (one per hold, however many
    /// reads it covered).
    public var acknowledgementHolds = 0
    /// Idle connections whose ngtcp2 pages were set aside, and set-aside ones brought back
    /// (``QuicConfiguration/idleMemoryDelay``).
    public var idleMemorySetAsides = 0
    public var idleMemoryRestores = 0
}

/// Every connection of one process side, client or server, and the routing between them:
/// datagrams and the time go in, events, packets and the next deadline come out. No sockets,
/// no clock, no threads: the I/O driver or a test moves the bytes.
public final class QuicEndpoint {
    static let connectionIDLength = 18

    /// Both replaced by ``reconfigure(server:)``; a connection keeps the credentials it started with.
    var server: QuicServerConfiguration?
    var serverCredentials: TLSCredentials?
    private var clientCredentials: [String: TLSCredentials] = [:]
    let staticSecret: [UInt8]
    let resetTokens: StatelessResetTokens
    let scratch = PathScratch()
    let random = RandomBytes()
    public internal(set) var now: MonotonicTime
    public internal(set) var statistics = QuicEndpointStatistics()

    private var routes: [ConnectionID: QuicConnection] = [:]
    public internal(set) var connections: [UInt64: QuicConnection] = [:]
    /// Server connections per ``SocketAddress/clientKey``, for addresses the limit applies to.
    var connectionsPerAddress: [SocketAddress: Int] = [:]
    private var nextConnectionNumber: UInt64 = 1
    private var events = FIFOQueue<(QuicConnection, QuicEvent)>()
    private var dirty = FIFOQueue<QuicConnection>()
    /// Connection deadlines by ``QuicConnection/id``: entries are never updated in place; a
    /// connection pushes a new entry when its deadline moves, and stale entries are recognised
    /// when they surface (their deadline is no longer the connection's scheduled one, or the
    /// connection is gone).
    private var timers = DeadlineHeap<UInt64>()
    /// Connections that may have gone idle, with when to look (``QuicConfiguration/idleMemoryDelay``).
    private var idleChecks = FIFOQueue<(due: UInt64, connection: UInt64)>()
    var statelessPackets = FIFOQueue<(bytes: [UInt8], destination: SocketAddress, source: SocketAddress)>()
    var statelessResetBudget: (second: UInt64, used: Int) = (0, 0)

    /// An endpoint that accepts connections when `server` is given, and can always `connect`.
    public init(server: QuicServerConfiguration? = nil, now: MonotonicTime) throws {
        self.server = server
        self.now = now
        if let server, server.connection.tls.certificateChainPath == nil {
            throw QuicError.invalidConfiguration("a server needs a certificate and key")
        }
        staticSecret = try server.map { try QuicEndpoint.keyMaterial(derivedFrom: $0, label: "qchat stateless reset and retry secret v1", length: 32) }
            ?? QuicEndpoint.randomBytes(32)
        resetTokens = try StatelessResetTokens(secret: staticSecret)
        serverCredentials = try server.map(QuicEndpoint.credentials)
    }

    public var connectionCount: Int { connections.count }

    /// Bytes ngtcp2 holds for all connections now, for the memory figures (O(connections)).
    public var ngtcp2Bytes: Int {
        connections.values.reduce(0) { total, connection in total + (connection.memory.map { Int(cquic_conn_memory_bytes($0)) } ?? 0) }
    }
    /// Server connections accepted whose handshake has not completed yet.
    public internal(set) var handshakesInProgress = 0
    /// Whether new clients are asked to Retry because too many handshakes are in progress.
    var retryingUnderLoad = false
    /// First Initials answered with a Retry: their copies get a Retry too (``RetriedDestinations``).
    var retriedDestinations = RetriedDestinations()

    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, count) }
        return bytes
    }

    /// Whether `pollEvent()` has something (an application handler raised events on another
    /// connection while the driver was delivering).
    public var hasPendingEvents: Bool { !events.isEmpty }

    /// Whether some connection has packets queued that `pollTransmit` has not taken yet.
    public var hasPendingTransmit: Bool { !dirty.isEmpty || !statelessPackets.isEmpty }

    // MARK: Client

    /// Starts a client connection from `local` to `remote`; its first packets are ready at once.
    public func connect(to remote: SocketAddress, from local: SocketAddress, configuration: QuicConfiguration,
                        now: MonotonicTime) throws -> QuicConnection {
        self.now = max(self.now, now)
        let credentials = try credentialsForClient(configuration.tls)
        let connection = QuicConnection(endpoint: self, id: takeConnectionNumber(), isServer: false,
                                        configuration: configuration, local: local, remote: remote)
        let source = ConnectionID.random(length: QuicEndpoint.connectionIDLength, from: random)
        let identity = QuicConnection.Identity(destination: .random(length: QuicEndpoint.connectionIDLength, from: random), source: source,
                                               originalDestination: nil, retrySource: nil, version: NGTCP2_PROTO_VER_V1)
        try connection.start(identity: identity, credentials: credentials,
                             serverName: configuration.tls.serverName ?? remote.host,
                             statelessResetToken: nil, token: nil)
        connections[connection.id] = connection
        route(source, to: connection)
        afterCall(connection)
        return connection
    }

    private func credentialsForClient(_ tls: QuicTLSConfiguration) throws -> TLSCredentials {
        let key = [tls.certificateChainPath ?? "", tls.privateKeyPath ?? "", tls.trustedCAPath ?? ""].joined(separator: "\u{0}")
        if let cached = clientCredentials[key] { return cached }
        let credentials = try TLSCredentials(tls)
        clientCredentials[key] = credentials
        return credentials
    }

    /// Moves a client connection to a new local address (a new socket); the server follows after
    /// validating the path.
    public func migrate(_ connection: QuicConnection, to local: SocketAddress, now: MonotonicTime) throws {
        self.now = max(self.now, now)
        guard let raw = connection.raw, connection.isUsable else { throw QuicError.connectionClosed }
        let result = scratch.withPath(local: local, remote: connection.remoteAddress) { path in
            ngtcp2_conn_initiate_migration(raw, path, self.now.nanoseconds)
        }
        guard result == 0 else { throw QuicError.migrationRefused(QuicConnection.errorText(result)) }
        // `localAddress` changes, with a `pathChanged` event, once the new path is validated.
        afterCall(connection)
    }

    // MARK: Input

    public func receive(_ datagram: [UInt8], from remote: SocketAddress, to local: SocketAddress, now: MonotonicTime) {
        datagram.withUnsafeBytes { receive($0, from: remote, to: local, now: now) }
    }

    public func receive(_ datagram: UnsafeRawBufferPointer, from remote: SocketAddress, to local: SocketAddress, now: MonotonicTime) {
        self.now = max(self.now, now)
        statistics.datagramsReceived += 1
        statistics.bytesReceived += datagram.count
        guard let base = datagram.baseAddress, datagram.count > 0 else {
            statistics.emptyDatagrams += 1
            return
        }
        var header = ngtcp2_version_cid()
        let decoded = ngtcp2_pkt_decode_version_cid(&header, base.assumingMemoryBound(to: UInt8.self), datagram.count,
                                                    QuicEndpoint.connectionIDLength)
        if decoded == NGTCP2_ERR_VERSION_NEGOTIATION {
            if server != nil { sendVersionNegotiation(header, datagramSize: datagram.count, remote: remote, local: local) }
            return
        }
        guard decoded == 0, let dcidPointer = header.dcid else {
            statistics.undecodableDatagrams += 1
            return
        }
        let destination = ConnectionID(UnsafeRawBufferPointer(start: dcidPointer, count: header.dcidlen))
        if let connection = routes[destination] {
            connection.receive(datagram, local: local, remote: remote)
            afterReceive(connection, onPath: local == connection.localAddress && remote == connection.remoteAddress)
            return
        }
        guard server != nil else {
            offerAsStatelessReset(datagram, from: remote, to: local)
            return
        }
        if base.load(as: UInt8.self) & 0x80 != 0 {
            accept(datagram, remote: remote, local: local)
        } else {
            sendStatelessReset(for: destination, datagramSize: datagram.count, remote: remote, local: local)
        }
    }

    /// A stateless reset carries random bytes where a connection ID would be, so it cannot be
    /// routed: it goes to our client connections with that server, and ngtcp2 recognises it by
    /// its token (RFC 9000 section 10.3).
    private func offerAsStatelessReset(_ datagram: UnsafeRawBufferPointer, from remote: SocketAddress, to local: SocketAddress) {
        statistics.unroutableDatagrams += 1
        guard datagram.count >= 21, datagram[0] & 0x80 == 0 else { return }
        for connection in connections.values where !connection.isServer && connection.remoteAddress == remote {
            connection.receive(datagram, local: local, remote: remote)
            afterCall(connection)
        }
    }

    /// The time moved on with nothing to read and no timer due: what the application writes
    /// next is judged against it (the coalescing window counts from the last packet sent).
    public func advance(to now: MonotonicTime) {
        self.now = max(self.now, now)
    }

    /// An ICMP port unreachable said nothing listens at `remote` any more (the server's process
    /// died, its host lives): every client connection to it ends now, `.dropped`, instead of
    /// at its idle timeout or handshake timeout. Servers never ask for these reports.
    public func peerUnreachable(_ remote: SocketAddress, now: MonotonicTime) {
        self.now = max(self.now, now)
        for connection in connections.values.filter({ !$0.isServer && $0.remoteAddress == remote }) {
            connection.peerUnreachable()
            afterCall(connection)
        }
    }

    /// Runs the timers that are due.
    public func handleTimeout(now: MonotonicTime) {
        self.now = max(self.now, now)
        // Collect first: a connection whose deadline stays due until it writes must not be
        // handled again within this call.
        var due: [QuicConnection] = []
        while let top = timers.earliest, top.deadline <= self.now {
            timers.popEarliest()
            guard let connection = connections[top.element], top.deadline.nanoseconds == connection.scheduledDeadline else { continue }
            connection.scheduledDeadline = .max
            due.append(connection)
        }
        setAsideIdleConnections()
        for connection in due {
            let now = self.now.nanoseconds
            if connection.protocolDeadline <= now {
                connection.handleExpiry()
                afterCall(connection)
            } else if connection.heldUntil <= now {
                // The coalescing window ended: what it held leaves now.
                connection.heldUntil = .max
                afterCall(connection)
            } else {
                // The deadline this entry was pushed for has moved later (an ACK stopped the
                // loss timer, say): nothing to do but wait for the new one.
                reschedule(connection)
            }
        }
    }

    /// When `handleTimeout` should run next; nil when no connection has a timer.
    public var nextTimeout: MonotonicTime? {
        // Asked after every input: look at the top, and pop only the stale entries above the
        // first live one.
        var next = idleChecks.first?.due ?? .max
        while let top = timers.earliest {
            if let connection = connections[top.element], top.deadline.nanoseconds == connection.scheduledDeadline {
                next = min(next, top.deadline.nanoseconds)
                break
            }
            timers.popEarliest()
        }
        return next == .max ? nil : MonotonicTime(nanoseconds: next)
    }

    /// Queues a connection that was just used for a look once its idle delay has passed.
    private func noteUse(of connection: QuicConnection) {
        guard !connection.awaitsIdleCheck, let delay = connection.configuration.idleMemoryDelay else { return }
        connection.awaitsIdleCheck = true
        connection.wasUsedSinceIdleCheck = false
        idleChecks.append((now.nanoseconds &+ delay.nanoseconds, connection.id))
    }

    /// Connections not used for a whole delay have their ngtcp2 pages set aside; the others are
    /// looked at again a delay later.
    private func setAsideIdleConnections() {
        let now = self.now.nanoseconds
        while let check = idleChecks.first, check.due <= now {
            _ = idleChecks.popFirst()
            guard let connection = connections[check.connection] else { continue }
            if connection.wasUsedSinceIdleCheck, let delay = connection.configuration.idleMemoryDelay {
                connection.wasUsedSinceIdleCheck = false
                idleChecks.append((now &+ delay.nanoseconds, connection.id))
            } else {
                connection.awaitsIdleCheck = false
                if connection.setAsideIdleMemory() > 0 { statistics.idleMemorySetAsides += 1 }
            }
        }
    }

    // MARK: Output

    /// The next event of any connection, in the order they happened.
    public func pollEvent() -> (QuicConnection, QuicEvent)? {
        guard let (connection, event) = events.popFirst() else { return nil }
        if case .handshakeCompleted = event { noteHandshakeKind(of: connection) }
        if case .streamData(let streamID, let bytes, _) = event, !bytes.isEmpty, !connection.holdsReceiveWindow {
            // The application has the bytes now: let the peer send as many more. The credit frame
            // is written in this round, unless an ACK is held (``QuicConnection/holdAcknowledgement()``):
            // then it waits with the ACK, at most the hold. That delays nothing the peer waits
            // for: ngtcp2 raises credit once half a window is used, so the peer still has half a
            // window (128 KiB at least) to send meanwhile, and a hold only covers a few small packets.
            connection.extendWindow(streamID, by: bytes.count)
            if !connection.isRemoved && !connection.isHoldingAcknowledgement { markDirty(connection) }
        }
        return (connection, event)
    }

    /// Writes the next batch of packets (one destination, at most `maxSegments` packets of
    /// `segmentSize` bytes each, the last possibly shorter) into `buffer`; nil when nothing is due.
    ///
    /// `now` stamps the packets: what the application wrote since the last input may be sent
    /// long after the last packet arrived or timer fired, and a packet stamped with that old
    /// time would put the whole gap into the RTT sample its ACK gives (and into loss recovery
    /// and pacing with it).
    public func pollTransmit(into buffer: UnsafeMutableRawBufferPointer, maxSegments: Int = 1, now: MonotonicTime) -> TransmitBatch? {
        self.now = max(self.now, now)
        if let packet = statelessPackets.popFirst() {
            packet.bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
            statistics.datagramsSent += 1
            statistics.bytesSent += packet.bytes.count
            return TransmitBatch(destination: packet.destination, source: packet.source, byteCount: packet.bytes.count,
                                 segmentSize: packet.bytes.count, segmentCount: 1)
        }
        while let connection = dirty.first {
            if !connection.isRemoved, let batch = connection.writeBatch(into: buffer, maxSegments: maxSegments) {
                _ = dirty.popFirst()
                if connection.isDrained {
                    connection.isDirty = false
                } else {
                    // Serve the others before this connection sends its next batch.
                    dirty.append(connection)
                }
                afterWrite(connection)
                statistics.datagramsSent += batch.segmentCount
                statistics.bytesSent += batch.byteCount
                return batch
            }
            _ = dirty.popFirst()
            connection.isDirty = false
            if !connection.isRemoved { afterWrite(connection) }
        }
        return nil
    }

    /// Convenience for tests: the next single packet as an array.
    public func pollTransmit(now: MonotonicTime) -> (bytes: [UInt8], batch: TransmitBatch)? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        let batch = buffer.withUnsafeMutableBytes { pollTransmit(into: $0, maxSegments: 1, now: now) }
        guard let batch else { return nil }
        return (Array(buffer[..<batch.byteCount]), batch)
    }

    // MARK: Bookkeeping

    func takeConnectionNumber() -> UInt64 {
        defer { nextConnectionNumber += 1 }
        return nextConnectionNumber
    }

    func enqueue(_ event: QuicEvent, for connection: QuicConnection) {
        if case .handshakeCompleted = event {
            handshakeEnded(connection)
        }
        events.append((connection, event))
    }

    private func noteHandshakeKind(of connection: QuicConnection) {
        connection.resumedSession = connection.tls?.isResumed ?? false
        guard connection.isServer else { return }
        if connection.resumedSession { statistics.handshakesResumed += 1 } else { statistics.handshakesFull += 1 }
        connection.releaseTLSAfterHandshake()
    }

    private func handshakeEnded(_ connection: QuicConnection) {
        guard connection.countsAsHandshake else { return }
        connection.countsAsHandshake = false
        handshakesInProgress -= 1
    }

    func markDirty(_ connection: QuicConnection) {
        guard !connection.isDirty, !connection.isRemoved else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    func route(_ id: ConnectionID, to connection: QuicConnection) {
        routes[id] = connection
        connection.routingIDs.insert(id)
    }

    func unroute(_ id: ConnectionID, from connection: QuicConnection) {
        if routes[id] === connection { routes[id] = nil }
        connection.routingIDs.remove(id)
    }

    func statelessResetToken(for id: ConnectionID) -> [UInt8] { resetTokens.token(for: id) }

    /// After anything touched a connection: it may have packets to send and a new deadline, or be gone.
    func afterCall(_ connection: QuicConnection) {
        if case .closed = connection.phase {
            remove(connection)
            return
        }
        markDirty(connection)
        reschedule(connection)
    }

    /// After a datagram was read into a connection. Most packets a server reads are ACKs of what
    /// it sent: they leave nothing to send unless data of ours was waiting for the window they
    /// open. So an established connection with nothing queued that heard on its current path is
    /// not written when the read left ngtcp2 nothing to send either
    /// (``QuicConnection/mayOweFramesAfterRead(deadline:)``; callbacks that make it owe a frame
    /// mark the connection dirty themselves). Everything else is written as after any call:
    /// a control frame never waits for data or a timer.
    ///
    /// Data held for the coalescing window (``QuicConnection/holdForCoalescing()``) does not count
    /// as queued here: it waits for its window, not for what the packet opened (a hold starts
    /// only when nothing else was left unsent). A read that owes a frame sends it with them.
    private func afterReceive(_ connection: QuicConnection, onPath: Bool) {
        guard onPath, connection.isEstablished, connection.hasNoQueuedData || connection.isHolding else {
            afterCall(connection)
            return
        }
        // ngtcp2's deadline is read once per read (this runs for every ACK a server reads); only a
        // held ACK (clients) moves it, to the hold's end.
        let deadline = connection.unheldProtocolDeadline
        if connection.mayOweFramesAfterRead(deadline: deadline), !connection.holdAcknowledgement() {
            markDirty(connection)
        }
        reschedule(connection, to: min(connection.isHoldingAcknowledgement ? connection.protocolDeadline : deadline, connection.heldUntil))
    }

    /// A connection began holding data for its coalescing window: its timer follows the hold.
    func rescheduleForHold(_ connection: QuicConnection) {
        reschedule(connection)
    }

    private func afterWrite(_ connection: QuicConnection) {
        if case .closed = connection.phase {
            remove(connection)
        } else {
            reschedule(connection)
        }
    }

    /// Follows the connection's deadline wherever it moves. One that moved later (an ACK
    /// stopped the loss timer: the usual case after every delivery) is pushed anew too, so the
    /// earlier entry is recognised as stale when it surfaces instead of waking the loop for a
    /// timer that no longer exists.
    private func reschedule(_ connection: QuicConnection, to known: UInt64? = nil) {
        noteUse(of: connection)
        let deadline = known ?? connection.nextDeadline
        guard deadline != connection.scheduledDeadline else { return }
        connection.scheduledDeadline = deadline
        if deadline != .max { timers.insert(connection.id, deadline: MonotonicTime(nanoseconds: deadline)) }
    }

    func remove(_ connection: QuicConnection) {
        guard !connection.isRemoved else { return }
        connection.isRemoved = true
        handshakeEnded(connection)
        if let address = connection.countedAddress {
            connection.countedAddress = nil
            let remaining = (connectionsPerAddress[address] ?? 1) - 1
            connectionsPerAddress[address] = remaining > 0 ? remaining : nil
        }
        for id in connection.routingIDs where routes[id] === connection { routes[id] = nil }
        connection.routingIDs.removeAll()
        connections[connection.id] = nil
        statistics.streamPacketsLostByRemovedConnections += connection.lostStreamPackets
        connection.release()
    }
}

extension QuicConnection {
    /// Delivered bytes give their credit back; a bulk stream's own credit waits for
    /// ``releaseReceiveCredit(_:count:)`` (connection credit never does).
    func extendWindow(_ streamID: QuicStreamID, by count: Int) {
        guard let raw, isUsable else { return }
        if bulkStreamCount == 0 || streams[streamID]?.isBulk != true {
            _ = ngtcp2_conn_extend_max_stream_offset(raw, streamID, UInt64(count))
        }
        ngtcp2_conn_extend_max_offset(raw, UInt64(count))
    }
}

