internal import CLinux
import Glibc
import RuntimeCore

/// The steps every socket of the runtime starts with, written once for UDP and TCP.
enum SocketDescriptor {
    /// A non-blocking, close-on-exec socket of `type` (SOCK_DGRAM, SOCK_STREAM) for `address`'s family.
    static func open(_ type: __socket_type, for address: SocketAddress) throws(SystemCallError) -> Int32 {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        return try systemCall("socket") {
            socket(family, Int32(type.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
    }

    /// Binds `descriptor` to `address` (port 0: the kernel picks) and returns the address it got.
    static func bind(_ descriptor: Int32, to address: SocketAddress) throws -> SocketAddress {
        _ = try address.withSockAddr { pointer, length in
            try systemCall("bind \(address)") { Glibc.bind(descriptor, pointer, length) }
        }
        return try localAddress(of: descriptor)
    }

    static func localAddress(of descriptor: Int32) throws -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bound in
                try systemCall("getsockname") { getsockname(descriptor, bound, &length) }
            }
        }
        guard let bound = SocketAddress(storage: storage) else { throw SystemCallError(function: "getsockname", errno: EAFNOSUPPORT) }
        return bound
    }
}
