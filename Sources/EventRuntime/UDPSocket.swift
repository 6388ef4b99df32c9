package import CLinux
import Glibc
import Synchronization
import RuntimeCore

/// A non-blocking UDP socket: one datagram at a time (sendto, recvfrom) for simple peers such as
/// the impairment proxy, or in batches (recvmmsg through a ``ReceiveBatch``, sendmmsg with UDP GSO)
/// for the QUIC driver. The descriptor closes once, with ``close()`` or when the socket goes.
public final class UDPSocket: Sendable {
    /// UDP_SEGMENT from <linux/udp.h>; SOL_UDP is IPPROTO_UDP.
    private static let udpSegmentOption: Int32 = 103

    public let descriptor: Int32
    public let localAddress: SocketAddress
    private let segmentation = Atomic<Bool>(true)
    private let closed = Atomic<Bool>(false)

    /// Binds to `address` (port 0: the kernel picks; see `localAddress`). `bufferBytes` sizes
    /// both kernel buffers, so that bursts queue in the kernel instead of being dropped; with
    /// `overridingSystemLimit` (as root) past net.core.rmem_max, otherwise the kernel caps it.
    public init(bindingTo address: SocketAddress, bufferBytes: Int32 = 8 << 20, overridingSystemLimit: Bool = false) throws {
        let descriptor = try SocketDescriptor.open(SOCK_DGRAM, for: address)
        UDPSocket.setBufferSize(descriptor, bytes: bufferBytes, force: overridingSystemLimit)
        do {
            localAddress = try SocketDescriptor.bind(descriptor, to: address)
            self.descriptor = descriptor
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit { close() }

    private static func setBufferSize(_ descriptor: Int32, bytes: Int32, force: Bool) {
        var size = bytes
        let length = socklen_t(MemoryLayout<Int32>.size)
        // The FORCE variants need CAP_NET_ADMIN; without it the plain ones give what the sysctl allows.
        if !force || setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, length) != 0 {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, length)
        }
        if !force || setsockopt(descriptor, SOL_SOCKET, SO_SNDBUFFORCE, &size, length) != 0 {
            setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, length)
        }
    }

    /// Closes the descriptor (the caller unwatches it on its loop first); later calls do nothing.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Glibc.close(descriptor)
    }

    // MARK: One datagram at a time

    /// Sends one datagram; false when the socket buffer is full (the datagram is not sent).
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) throws -> Bool {
        var storage = sockaddr_storage()
        let length = destination.write(to: &storage)
        let sent = try withUnsafePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { name in
                try nonBlockingSystemCall("sendto \(destination)") { sendto(descriptor, bytes.baseAddress, bytes.count, 0, name, length) }
            }
        }
        return sent != nil
    }

    @discardableResult
    public func send(_ bytes: [UInt8], to destination: SocketAddress) throws -> Bool {
        try bytes.withUnsafeBytes { buffer in try send(buffer, to: destination) }
    }

    /// Receives one datagram into `buffer`; nil when none is waiting. A datagram longer than the
    /// buffer is truncated, so callers pass 64 KiB.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws -> (count: Int, source: SocketAddress)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let count = try withUnsafeMutablePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { name in
                try nonBlockingSystemCall("recvfrom") { recvfrom(descriptor, buffer.baseAddress, buffer.count, 0, name, &length) }
            }
        }
        guard let count else { return nil }
        guard let source = SocketAddress(storage: storage) else { return nil }
        return (count, source)
    }

    /// Waits up to `timeout` seconds for one datagram: for tests and simple peers that have no
    /// loop of their own. nil on timeout.
    public func receive(timeout: Double, maximumLength: Int = 65536) throws -> (bytes: [UInt8], source: SocketAddress)? {
        let deadline = MonotonicTime.now() + TimeSpan(nanoseconds: UInt64(max(0, timeout) * 1e9))
        var bytes = [UInt8](repeating: 0, count: maximumLength)
        while true {
            let received = try bytes.withUnsafeMutableBytes { buffer in try receive(into: buffer) }
            if let received {
                bytes.removeSubrange(received.count...)
                return (bytes, received.source)
            }
            let now = MonotonicTime.now()
            if now >= deadline { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            // Round up so a sub-millisecond remainder waits rather than spinning.
            let milliseconds = Int32(clamping: ((deadline - now).nanoseconds + 999_999) / 1_000_000)
            try systemCall("poll") { poll(&entry, 1, milliseconds) }
        }
    }

    // MARK: Batches (the QUIC driver)

    /// False once the device refused to segment (UDP GSO): send one packet per message from then on.
    public var segmentationOffload: Bool { segmentation.load(ordering: .relaxed) }

    /// Sends prepared messages; returns how many the kernel took (fewer when its buffer is full).
    /// Throws EIO once when the device cannot segment, after which ``segmentationOffload`` is false.
    package func send(_ messages: UnsafeMutablePointer<clinux_mmsghdr>, count: Int) throws -> Int {
        let sent: Int32?
        do {
            sent = try nonBlockingSystemCall("sendmmsg") { clinux_sendmmsg(descriptor, messages, UInt32(count), 0) }
        } catch {
            guard error.errno == EIO && segmentationOffload else { throw error }
            segmentation.store(false, ordering: .relaxed)
            throw SystemCallError(function: "sendmmsg", errno: EIO, message: "UDP GSO unsupported")
        }
        return Int(sent ?? 0)
    }

    /// Writes the control message that asks the kernel to cut a message into `segmentSize`
    /// packets; returns its length.
    package static func segmentationControl(segmentSize: Int, into control: UnsafeMutableRawPointer) -> Int {
        let space = Int(clinux_cmsg_space(MemoryLayout<UInt16>.size))
        let header = control.assumingMemoryBound(to: cmsghdr.self)
        header.pointee.cmsg_level = Int32(IPPROTO_UDP)
        header.pointee.cmsg_type = udpSegmentOption
        header.pointee.cmsg_len = Int(clinux_cmsg_len(MemoryLayout<UInt16>.size))
        clinux_cmsg_data(header).withMemoryRebound(to: UInt16.self, capacity: 1) { $0.pointee = UInt16(segmentSize) }
        return space
    }

    /// The segment size a control message from ``segmentationControl(segmentSize:into:)`` asks for.
    package static func segmentSize(inControl control: UnsafeRawPointer) -> Int {
        Int(control.advanced(by: Int(clinux_cmsg_space(0))).loadUnaligned(as: UInt16.self))
    }

    // MARK: The error queue

    /// Turns on the error queue (IP_RECVERR): the kernel then keeps the ICMP errors (port
    /// unreachable, ...) that packets this socket sent caused, with their destination.
    public func enableErrorReports() throws {
        _ = try systemCall("setsockopt IP_RECVERR") { clinux_enable_socket_errors(descriptor, localAddress.isIPv6 ? 1 : 0) }
    }

    /// Takes every queued error; `body` gets the destination of the packet that caused it and
    /// the error (ECONNREFUSED: nobody listens on that port), for errors an ICMP message reported.
    public func readErrors(_ body: (SocketAddress, Int32) -> Void) {
        var peer = sockaddr_storage()
        var code: Int32 = 0
        var fromICMP: Int32 = 0
        while clinux_read_socket_error(descriptor, &peer, &code, &fromICMP) == 1 {
            guard fromICMP != 0, let remote = SocketAddress(storage: peer) else { continue }
            body(remote, code)
        }
    }
}
