internal import CLinux
import EventRuntime
import Glibc
import QuicEngine

/// Moves one endpoint's datagrams between UDP sockets and the sans-IO engine on an event loop,
/// and hands its events to the application on the loop thread.
public final class QuicDriver {
    public let endpoint: QuicEndpoint
    /// Called on the loop thread for every event, in order.
    public var onEvent: (QuicConnection, QuicEvent) -> Void = { _, _ in }
    public private(set) var sendErrors = 0
    /// After a wake-up whose datagrams asked nothing back (ACKs of what we sent: no event, no
    /// packet to send), the loop looks at its descriptors again only this much later
    /// (``EventLoop/pauseInput(until:)``), so that the ACKs of a fan-out's other members are read
    /// in one `recvmmsg` instead of a wake-up each. Zero (the default): never.
    public var acknowledgementReadPause = TimeSpan.zero

    private let loop: EventLoop
    private var sockets: [SocketAddress: UDPSocket] = [:]
    private var primary: UDPSocket?
    /// One set of receive buffers for every socket of this driver.
    private let receiveBatch = ReceiveBatch()
    // One sendmmsg for a broadcast to a room of up to this many members (each its own datagram).
    private let sendSlots = 64
    private let slotSize = 65536
    private let maxSegments = 40
    private let sendBuffer: UnsafeMutableRawPointer
    private let sendNames: UnsafeMutablePointer<sockaddr_storage>
    private let sendVectors: UnsafeMutablePointer<iovec>
    private let sendControls: UnsafeMutableRawPointer
    private let controlSize = 64
    private let sendHeaders: UnsafeMutablePointer<clinux_mmsghdr>
    private var pendingMessages = 0
    private var pendingSocket: UDPSocket?
    private var blockedOn: UDPSocket?

    public init(loop: EventLoop, endpoint: QuicEndpoint) {
        self.loop = loop
        self.endpoint = endpoint
        sendBuffer = .allocate(byteCount: sendSlots * slotSize, alignment: 16)
        sendNames = .allocate(capacity: sendSlots)
        sendVectors = .allocate(capacity: sendSlots)
        sendControls = .allocate(byteCount: sendSlots * controlSize, alignment: 16)
        sendHeaders = .allocate(capacity: sendSlots)
        loop.addTick { [unowned self] in tick() }
    }

    deinit {
        for socket in sockets.values { loop.unwatch(socket.descriptor) }
        sendBuffer.deallocate()
        sendNames.deallocate()
        sendVectors.deallocate()
        sendControls.deallocate()
        sendHeaders.deallocate()
    }

    /// Binds a UDP socket (port 0 picks a free port) and returns its address. With
    /// `reportsUnreachable` (clients), an ICMP port unreachable answering a packet of a client
    /// connection ends that connection at once (``QuicEndpoint/peerUnreachable(_:now:)``).
    @discardableResult
    public func bind(_ address: SocketAddress, reportsUnreachable: Bool = false) throws -> SocketAddress {
        let socket = try UDPSocket(bindingTo: address)
        sockets[socket.localAddress] = socket
        if primary == nil { primary = socket }
        try loop.watchReadable(socket.descriptor) { [unowned self] in readable(socket) }
        if reportsUnreachable {
            try socket.enableErrorReports()
            loop.watchErrors(socket.descriptor) { [unowned self] in
                socket.readErrors { remote, code in
                    if code == ECONNREFUSED { endpoint.peerUnreachable(remote, now: .now()) }
                }
            }
        }
        return socket.localAddress
    }

    /// Closes the socket bound at `address` (a client that moved away from it).
    public func unbind(_ address: SocketAddress) {
        guard let socket = sockets.removeValue(forKey: address) else { return }
        loop.unwatch(socket.descriptor)
        if primary === socket { primary = sockets.values.first }
    }

    public var localAddresses: [SocketAddress] { Array(sockets.keys) }

    private func readable(_ socket: UDPSocket) {
        // A bounded number of batches per wake-up keeps one busy socket from starving the rest.
        var now = MonotonicTime.now()
        var read = 0
        for _ in 0..<16 {
            now = MonotonicTime.now()
            let local = socket.localAddress
            let count = (try? receiveBatch.receive(from: socket) { datagram, remote in
                endpoint.receive(datagram, from: remote, to: local, now: now)
            }) ?? 0
            read += count
            if count < ReceiveBatch.size { break }
        }
        if acknowledgementReadPause.nanoseconds > 0, read > 0, !endpoint.hasPendingEvents, !endpoint.hasPendingTransmit {
            loop.pauseInput(until: now + acknowledgementReadPause)
        }
    }

    private func tick() -> (deadline: MonotonicTime?, busy: Bool) {
        let now = MonotonicTime.now()
        if let deadline = endpoint.nextTimeout, deadline <= now { endpoint.handleTimeout(now: now) } else { endpoint.advance(to: now) }
        var delivered = 0
        while let (connection, event) = endpoint.pollEvent() {
            onEvent(connection, event)
            delivered += 1
        }
        flush()
        return (endpoint.nextTimeout, endpoint.hasPendingEvents || (delivered > 0 && endpoint.hasPendingTransmit))
    }

    /// Sends everything the endpoint has to send, in sendmmsg batches, stamped with the time of
    /// this flush (the application may have written long after the last packet or timer).
    public func flush() {
        guard blockedOn == nil else { return }
        let now = MonotonicTime.now()
        while true {
            if pendingMessages == 0 { fillBatch(now: now) }
            guard pendingMessages > 0, let socket = pendingSocket else { return }
            let sent: Int
            do {
                sent = try socket.send(sendHeaders, count: pendingMessages)
            } catch {
                sendErrors += 1
                if !socket.segmentationOffload { resendWithoutSegmentation() }
                pendingMessages = 0
                continue
            }
            if sent < pendingMessages {
                // The kernel buffer is full: keep the rest and wait until the socket is writable.
                let remaining = pendingMessages - sent
                if sent > 0 { shiftPending(by: sent, remaining: remaining) }
                pendingMessages = remaining
                blockedOn = socket
                loop.watchWritable(socket.descriptor) { [unowned self] in
                    loop.watchWritable(socket.descriptor, nil)
                    blockedOn = nil
                    flush()
                }
                return
            }
            pendingMessages = 0
        }
    }

    private func fillBatch(now: MonotonicTime) {
        pendingSocket = nil
        var count = 0
        while count < sendSlots {
            let slot = UnsafeMutableRawBufferPointer(start: sendBuffer + count * slotSize, count: slotSize)
            let useGSO = primary?.segmentationOffload ?? false
            guard let batch = endpoint.pollTransmit(into: slot, maxSegments: useGSO ? maxSegments : 1, now: now) else { break }
            // Nearly every batch leaves from the one socket a server binds: no lookup for it.
            guard let socket = primary.flatMap({ $0.localAddress == batch.source ? $0 : nil }) ?? sockets[batch.source] ?? primary
            else { continue }
            if let current = pendingSocket, current !== socket {
                // One sendmmsg per socket: this batch waits in the stash of a new round.
                prepare(index: count, batch: batch, slot: slot)
                pendingMessages = count
                sendNow(extraFrom: count, on: socket)
                return
            }
            pendingSocket = socket
            prepare(index: count, batch: batch, slot: slot)
            count += 1
        }
        pendingMessages = count
    }

    /// Sends the message at `index` on its own socket right away (a rare mixed-socket round).
    private func sendNow(extraFrom index: Int, on socket: UDPSocket) {
        _ = try? socket.send(sendHeaders + index, count: 1)
    }

    private func prepare(index: Int, batch: TransmitBatch, slot: UnsafeMutableRawBufferPointer) {
        let nameLength = batch.destination.write(to: &sendNames[index])
        sendVectors[index] = iovec(iov_base: slot.baseAddress, iov_len: batch.byteCount)
        var header = clinux_mmsghdr()
        header.msg_hdr.msg_name = UnsafeMutableRawPointer(sendNames + index)
        header.msg_hdr.msg_namelen = nameLength
        header.msg_hdr.msg_iov = sendVectors + index
        header.msg_hdr.msg_iovlen = 1
        if batch.segmentCount > 1 {
            let control = sendControls + index * controlSize
            header.msg_hdr.msg_control = control
            header.msg_hdr.msg_controllen = UDPSocket.segmentationControl(segmentSize: batch.segmentSize, into: control)
        }
        sendHeaders[index] = header
    }

    private func shiftPending(by sent: Int, remaining: Int) {
        for index in 0..<remaining {
            sendHeaders[index] = sendHeaders[index + sent]
        }
    }

    /// After GSO failed, sends each pending message's packets one by one.
    private func resendWithoutSegmentation() {
        guard let socket = pendingSocket else { return }
        for index in 0..<pendingMessages {
            var header = sendHeaders[index]
            guard header.msg_hdr.msg_control != nil else {
                _ = try? socket.send(sendHeaders + index, count: 1)
                continue
            }
            let segment = Int(UnsafeRawPointer(header.msg_hdr.msg_control!).advanced(by: Int(clinux_cmsg_space(0)))
                .loadUnaligned(as: UInt16.self))
            let total = sendVectors[index].iov_len
            let base = sendVectors[index].iov_base!
            header.msg_hdr.msg_control = nil
            header.msg_hdr.msg_controllen = 0
            var offset = 0
            while offset < total {
                var vector = iovec(iov_base: base + offset, iov_len: min(segment, total - offset))
                withUnsafeMutablePointer(to: &vector) { header.msg_hdr.msg_iov = $0
                    _ = withUnsafeMutablePointer(to: &header) { try? socket.send($0, count: 1) }
                }
                offset += segment
            }
        }
    }
}
