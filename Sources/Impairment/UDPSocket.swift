import Glibc

/// A non-blocking IPv4 UDP socket. A value type holding the descriptor: whoever created it calls
/// `close()` once; the proxy's loop is the only owner of the sockets it creates.
public struct UDPSocket: Sendable {
    public let descriptor: Int32
    public let localAddress: SocketAddress

    /// Binds to `address` (port 0: the kernel picks). `bufferBytes` sizes both kernel buffers so
    /// that bursts in load tests queue in the kernel rather than being dropped before the proxy
    /// sees them; as root it overrides net.core.rmem_max, elsewhere the kernel caps it.
    public init(bindingTo address: SocketAddress, bufferBytes: Int32 = 4 << 20) throws {
        let descriptor = try systemCall("socket") {
            socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        UDPSocket.setBufferSize(descriptor, bytes: bufferBytes)
        do {
            var raw = address.sockaddr
            _ = try withUnsafePointer(to: &raw) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    try systemCall("bind \(address)") { bind(descriptor, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            var bound = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = try withUnsafeMutablePointer(to: &bound) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                    try systemCall("getsockname") { getsockname(descriptor, generic, &length) }
                }
            }
            self.descriptor = descriptor
            self.localAddress = SocketAddress(bound)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    private static func setBufferSize(_ descriptor: Int32, bytes: Int32) {
        var size = bytes
        let length = socklen_t(MemoryLayout<Int32>.size)
        // The FORCE variants need CAP_NET_ADMIN; without it the plain ones give what the sysctl allows.
        if setsockopt(descriptor, SOL_SOCKET, SO_RCVBUFFORCE, &size, length) != 0 {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, length)
        }
        if setsockopt(descriptor, SOL_SOCKET, SO_SNDBUFFORCE, &size, length) != 0 {
            setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, length)
        }
    }

    /// Sends one datagram; false when the socket buffer is full (the datagram is not sent).
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) throws -> Bool {
        var raw = destination.sockaddr
        let sent = try withUnsafePointer(to: &raw) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                try nonBlockingSystemCall("sendto \(destination)") {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, generic, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
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
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = try withUnsafeMutablePointer(to: &source) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                try nonBlockingSystemCall("recvfrom") { recvfrom(descriptor, buffer.baseAddress, buffer.count, 0, generic, &length) }
            }
        }
        guard let count else { return nil }
        return (count, SocketAddress(source))
    }

    public func close() {
        Glibc.close(descriptor)
    }
}
