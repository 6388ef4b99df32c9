internal import CLinux
import Glibc
import RuntimeCore

/// A non-blocking listening TCP socket (the metrics endpoint's). Watch `descriptor` on an
/// `EventLoop`: readable when connections wait to be accepted.
public final class TCPListener {
    public let descriptor: Int32
    public let localAddress: SocketAddress
    private var isClosed = false

    /// Binds and listens (port 0 picks a free port: see `localAddress`).
    public init(bindingTo address: SocketAddress, backlog: Int32 = 1024) throws {
        let descriptor = try SocketDescriptor.open(SOCK_STREAM, for: address)
        do {
            // A restarted server binds again at once, without waiting out TIME_WAIT.
            var one: Int32 = 1
            try systemCall("setsockopt SO_REUSEADDR") {
                setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            localAddress = try SocketDescriptor.bind(descriptor, to: address)
            try systemCall("listen") { listen(descriptor, backlog) }
            self.descriptor = descriptor
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    deinit { close() }

    /// The next waiting connection, non-blocking; nil when none waits. Errors that concern only
    /// the connection being accepted (it was reset meanwhile) are skipped; running out of
    /// descriptors is thrown (EMFILE, ENFILE), and the caller decides what to give up.
    public func accept() throws -> TCPStream? {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let accepted = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    clinux_accept4(descriptor, address, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if accepted >= 0 {
                guard let remote = SocketAddress(storage: storage) else {
                    Glibc.close(accepted)
                    continue
                }
                return TCPStream(accepted: accepted, remote: remote)
            }
            let code = errno
            switch code {
            case EAGAIN, EWOULDBLOCK: return nil
            case EINTR, ECONNABORTED, EPROTO, EPERM: continue
            default: throw SystemCallError(function: "accept4", errno: code)
            }
        }
    }

    /// Closes the socket (the caller unwatches it on its loop first).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }
}
