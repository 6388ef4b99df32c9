internal import CLinux
import Glibc
import RuntimeCore

/// A non-blocking TCP socket with Nagle's algorithm off (TCP_NODELAY: a chat line goes out at
/// once instead of waiting for the previous segment's ACK): one we connect, or one a
/// ``TCPListener`` accepted. Watch `descriptor` on an `EventLoop`: writable once the connect
/// completes (then call `finishConnect`), readable when bytes or the end of the stream arrived.
public final class TCPStream {
    public let descriptor: Int32
    public let remote: SocketAddress
    private var isClosed = false

    /// Starts connecting to `remote`; the connect completes (or fails) later, when the socket
    /// becomes writable.
    public init(connectingTo remote: SocketAddress) throws {
        self.remote = remote
        let descriptor = try SocketDescriptor.open(SOCK_STREAM, for: remote)
        self.descriptor = descriptor
        var one: Int32 = 1
        do {
            try systemCall("setsockopt TCP_NODELAY") {
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            let result = remote.withSockAddr { address, length in connect(descriptor, address, length) }
            if result != 0 && errno != EINPROGRESS && errno != EINTR {
                let code = errno
                throw SystemCallError(function: "connect \(remote)", errno: code)
            }
        } catch {
            Glibc.close(descriptor)
            isClosed = true
            throw error
        }
    }

    /// A connection a listener accepted (already non-blocking).
    init(accepted descriptor: Int32, remote: SocketAddress) {
        self.descriptor = descriptor
        self.remote = remote
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close() }

    /// Sends FIN after what was written: the peer reads to the end, and we can still read what
    /// it sends (closing with unread bytes would send a reset that can destroy our last reply).
    public func shutdownWrite() {
        guard !isClosed else { return }
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// After the socket became writable: throws the connect's error (refused, unreachable, ...).
    public func finishConnect() throws {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try systemCall("getsockopt SO_ERROR") { getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) }
        if code != 0 {
            throw SystemCallError(function: "connect \(remote)", errno: code)
        }
    }

    /// Reads into `buffer`: the byte count, 0 at the end of the stream, nil when nothing is waiting.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        try nonBlockingSystemCall("read") { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// Writes what the kernel takes of `bytes`: the count, 0 when its buffer is full. Never
    /// raises SIGPIPE; a closed peer is a thrown EPIPE.
    public func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard !bytes.isEmpty else { return 0 }
        return try nonBlockingSystemCall("send") { send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) } ?? 0
    }

    /// Closes the socket (the caller unwatches it on its loop first).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }
}
