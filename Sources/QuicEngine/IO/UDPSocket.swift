internal import CLinux
import Glibc

/// A non-blocking UDP socket that receives with recvmmsg and sends with sendmmsg and UDP GSO.
final class UDPSocket {
    static let batchSize = 64
    static let receiveSlot = 2048
    /// UDP_SEGMENT from <linux/udp.h>; SOL_UDP is IPPROTO_UDP.
    private static let udpSegmentOption: Int32 = 103

    let descriptor: Int32
    let localAddress: SocketAddress
    private(set) var gsoEnabled = true

    private let receiveBuffer: UnsafeMutableRawPointer
    private let receiveNames: UnsafeMutablePointer<sockaddr_storage>
    private let receiveVectors: UnsafeMutablePointer<iovec>
    private let receiveHeaders: UnsafeMutablePointer<clinux_mmsghdr>

    init(bindingTo address: SocketAddress) throws {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let descriptor = try systemCall("socket") { socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        var size: Int32 = 8 << 20
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        do {
            _ = try address.withSockAddr { pointer, length in
                try systemCall("bind \(address)") { bind(descriptor, pointer, length) }
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            _ = try withUnsafeMutablePointer(to: &storage) { pointer in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    try systemCall("getsockname") { getsockname(descriptor, address, &length) }
                }
            }
            guard let bound = SocketAddress(storage: storage) else {
                throw QuicError.invalidConfiguration("unsupported address family")
            }
            localAddress = bound
            self.descriptor = descriptor
        } catch {
            close(descriptor)
            throw error
        }
        receiveBuffer = .allocate(byteCount: UDPSocket.batchSize * UDPSocket.receiveSlot, alignment: 16)
        receiveNames = .allocate(capacity: UDPSocket.batchSize)
        receiveVectors = .allocate(capacity: UDPSocket.batchSize)
        receiveHeaders = .allocate(capacity: UDPSocket.batchSize)
        for index in 0..<UDPSocket.batchSize {
            receiveVectors[index] = iovec(iov_base: receiveBuffer + index * UDPSocket.receiveSlot, iov_len: UDPSocket.receiveSlot)
        }
    }

    deinit {
        close(descriptor)
        receiveBuffer.deallocate()
        receiveNames.deallocate()
        receiveVectors.deallocate()
        receiveHeaders.deallocate()
    }

    /// Receives up to one batch; calls `body` for each datagram (empty ones included). Returns how
    /// many arrived, 0 when none was waiting.
    func receiveBatch(_ body: (UnsafeRawBufferPointer, SocketAddress) -> Void) throws -> Int {
        for index in 0..<UDPSocket.batchSize {
            receiveHeaders[index] = clinux_mmsghdr()
            receiveHeaders[index].msg_hdr.msg_name = UnsafeMutableRawPointer(receiveNames + index)
            receiveHeaders[index].msg_hdr.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            receiveHeaders[index].msg_hdr.msg_iov = receiveVectors + index
            receiveHeaders[index].msg_hdr.msg_iovlen = 1
        }
        let count: Int32
        do {
            count = try systemCall("recvmmsg") { clinux_recvmmsg(descriptor, receiveHeaders, UInt32(UDPSocket.batchSize), 0) }
        } catch let error as QuicError where error.isWouldBlock {
            return 0
        }
        for index in 0..<Int(count) {
            let length = Int(receiveHeaders[index].msg_len)
            let sender = UnsafeRawPointer(receiveNames + index).assumingMemoryBound(to: sockaddr.self)
            guard let remote = SocketAddress(sockaddr: sender) else { continue }
            body(UnsafeRawBufferPointer(start: receiveBuffer + index * UDPSocket.receiveSlot, count: min(length, UDPSocket.receiveSlot)), remote)
        }
        return Int(count)
    }

    /// Turns on the error queue (IP_RECVERR): the kernel then keeps the ICMP errors (port
    /// unreachable, ...) that packets this socket sent caused, with their destination.
    func enableErrorReports() throws {
        _ = try systemCall("setsockopt IP_RECVERR") { clinux_enable_socket_errors(descriptor, localAddress.isIPv6 ? 1 : 0) }
    }

    /// Takes every queued error; `body` gets the destination of the packet that caused it and
    /// the error (ECONNREFUSED: nobody listens on that port), for errors an ICMP message reported.
    func readErrors(_ body: (SocketAddress, Int32) -> Void) {
        var peer = sockaddr_storage()
        var code: Int32 = 0
        var fromICMP: Int32 = 0
        while clinux_read_socket_error(descriptor, &peer, &code, &fromICMP) == 1 {
            guard fromICMP != 0, let remote = SocketAddress(storage: peer) else { continue }
            body(remote, code)
        }
    }

    /// Sends prepared messages; returns how many the kernel took (fewer when its buffer is full).
    func send(_ messages: UnsafeMutablePointer<clinux_mmsghdr>, count: Int) throws -> Int {
        do {
            return Int(try systemCall("sendmmsg") { clinux_sendmmsg(descriptor, messages, UInt32(count), 0) })
        } catch let error as QuicError where error.isWouldBlock {
            return 0
        } catch QuicError.system(_, let code, _) where code == EIO && gsoEnabled {
            // The device cannot segment: fall back to one packet per message from now on.
            gsoEnabled = false
            throw QuicError.system(function: "sendmmsg", errno: EIO, message: "UDP GSO unsupported")
        }
    }

    static func gsoControl(segmentSize: Int, into control: UnsafeMutableRawPointer) -> Int {
        let space = Int(clinux_cmsg_space(MemoryLayout<UInt16>.size))
        let header = control.assumingMemoryBound(to: cmsghdr.self)
        header.pointee.cmsg_level = Int32(IPPROTO_UDP)
        header.pointee.cmsg_type = udpSegmentOption
        header.pointee.cmsg_len = Int(clinux_cmsg_len(MemoryLayout<UInt16>.size))
        clinux_cmsg_data(header).withMemoryRebound(to: UInt16.self, capacity: 1) { $0.pointee = UInt16(segmentSize) }
        return space
    }
}
