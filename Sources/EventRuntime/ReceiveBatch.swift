internal import CLinux
import Glibc
import RuntimeCore

/// The buffers of one `recvmmsg`: up to ``size`` datagrams of up to ``slot`` bytes each from a
/// ``UDPSocket`` in one system call. One serves every socket of its thread (each datagram is
/// handed to the body before the next call).
public final class ReceiveBatch {
    public static let size = 64
    public static let slot = 2048

    private let buffer: UnsafeMutableRawPointer
    private let names: UnsafeMutablePointer<sockaddr_storage>
    private let vectors: UnsafeMutablePointer<iovec>
    private let headers: UnsafeMutablePointer<clinux_mmsghdr>

    public init() {
        buffer = .allocate(byteCount: ReceiveBatch.size * ReceiveBatch.slot, alignment: 16)
        names = .allocate(capacity: ReceiveBatch.size)
        vectors = .allocate(capacity: ReceiveBatch.size)
        headers = .allocate(capacity: ReceiveBatch.size)
        for index in 0..<ReceiveBatch.size {
            vectors[index] = iovec(iov_base: buffer + index * ReceiveBatch.slot, iov_len: ReceiveBatch.slot)
        }
    }

    deinit {
        buffer.deallocate()
        names.deallocate()
        vectors.deallocate()
        headers.deallocate()
    }

    /// Receives up to one batch from `socket`; calls `body` for each datagram (empty ones
    /// included). Returns how many arrived, 0 when none was waiting.
    public func receive(from socket: UDPSocket, _ body: (UnsafeRawBufferPointer, SocketAddress) -> Void) throws -> Int {
        for index in 0..<ReceiveBatch.size {
            headers[index] = clinux_mmsghdr()
            headers[index].msg_hdr.msg_name = UnsafeMutableRawPointer(names + index)
            headers[index].msg_hdr.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            headers[index].msg_hdr.msg_iov = vectors + index
            headers[index].msg_hdr.msg_iovlen = 1
        }
        guard let count = try nonBlockingSystemCall("recvmmsg", { clinux_recvmmsg(socket.descriptor, headers, UInt32(ReceiveBatch.size), 0) })
        else { return 0 }
        for index in 0..<Int(count) {
            let length = Int(headers[index].msg_len)
            let sender = UnsafeRawPointer(names + index).assumingMemoryBound(to: sockaddr.self)
            guard let remote = SocketAddress(sockaddr: sender) else { continue }
            body(UnsafeRawBufferPointer(start: buffer + index * ReceiveBatch.slot, count: min(length, ReceiveBatch.slot)), remote)
        }
        return Int(count)
    }
}
