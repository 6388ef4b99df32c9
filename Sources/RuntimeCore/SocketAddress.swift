import Glibc

/// An IPv4 or IPv6 address and port, as a plain value: the one socket address of the tree (the
/// engine's paths, the runtime's UDP and TCP sockets, the impairment proxy). The engine and the
/// runtime convert it to `sockaddr` only at the C boundary (the `package` members below), so
/// nothing above them handles raw socket structures.
public enum SocketAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(address: UInt32, port: UInt16)          // address in host byte order
    case v6(address: IPv6Bits, port: UInt16, scope: UInt32)

    /// Parses a numeric IPv4 or IPv6 address ("127.0.0.1", "::1").
    public init?(host: String, port: UInt16) {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            self = .v4(address: UInt32(bigEndian: v4.s_addr), port: port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            self = .v6(address: IPv6Bits(v6), port: port, scope: 0)
            return
        }
        return nil
    }

    /// Resolves a host name or numeric address (localhost included) to its first UDP address.
    public static func resolve(host: String, port: UInt16) -> SocketAddress? {
        resolveAll(host: host, port: port).first
    }

    /// Every UDP address a host name or numeric address resolves to, in getaddrinfo's order (RFC
    /// 6724's preference), each once; empty when it does not resolve. Blocking (DNS).
    public static func resolveAll(host: String, port: UInt16) -> [SocketAddress] {
        if let numeric = SocketAddress(host: host, port: port) { return [numeric] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(result) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr, let parsed = SocketAddress(sockaddr: address), !addresses.contains(parsed) {
                addresses.append(parsed)
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }

    /// 127.0.0.`lastOctet` (Linux routes all of 127.0.0.0/8 to lo, so binding there needs no setup).
    public static func loopback(_ lastOctet: UInt8 = 1, port: UInt16 = 0) -> SocketAddress {
        .v4(address: 0x7F00_0000 | UInt32(lastOctet), port: port)
    }

    public var port: UInt16 {
        switch self {
        case .v4(_, let port), .v6(_, let port, _): return port
        }
    }

    public var isIPv6: Bool { if case .v6 = self { return true } else { return false } }

    /// 127.0.0.0/8 or ::1.
    public var isLoopback: Bool {
        switch self {
        case .v4(let address, _): return address >> 24 == 127
        case .v6(let address, _, _): return address.high == 0 && UInt64(bigEndian: address.low) == 1
        }
    }

    public func withPort(_ port: UInt16) -> SocketAddress {
        switch self {
        case .v4(let address, _): return .v4(address: address, port: port)
        case .v6(let address, _, let scope): return .v6(address: address, port: port, scope: scope)
        }
    }

    public var host: String {
        switch self {
        case .v4(let address, _):
            var raw = in_addr(s_addr: address.bigEndian)
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        case .v6(let address, _, _):
            var raw = address.in6
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    // Written out and inlinable: the engine and the driver compare and hash addresses per packet,
    // from other modules than this one.
    @inlinable
    public static func == (lhs: SocketAddress, rhs: SocketAddress) -> Bool {
        switch (lhs, rhs) {
        case (.v4(let leftAddress, let leftPort), .v4(let rightAddress, let rightPort)):
            return leftAddress == rightAddress && leftPort == rightPort
        case (.v6(let leftAddress, let leftPort, let leftScope), .v6(let rightAddress, let rightPort, let rightScope)):
            return leftAddress.high == rightAddress.high && leftAddress.low == rightAddress.low && leftPort == rightPort
                && leftScope == rightScope
        default:
            return false
        }
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .v4(let address, let port):
            hasher.combine(address)
            hasher.combine(port)
        case .v6(let address, let port, let scope):
            hasher.combine(address.high)
            hasher.combine(address.low)
            hasher.combine(port)
            hasher.combine(scope)
        }
    }
}

extension SocketAddress {
    @inlinable
    package init?(sockaddr pointer: UnsafePointer<sockaddr>) {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            let value = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in.self)
            self = .v4(address: UInt32(bigEndian: value.sin_addr.s_addr), port: UInt16(bigEndian: value.sin_port))
        case AF_INET6:
            let value = UnsafeRawPointer(pointer).loadUnaligned(as: sockaddr_in6.self)
            self = .v6(address: IPv6Bits(value.sin6_addr), port: UInt16(bigEndian: value.sin6_port),
                       scope: value.sin6_scope_id)
        default:
            return nil
        }
    }

    package init?(storage: sockaddr_storage) {
        var copy = storage
        let parsed = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress(sockaddr: $0) }
        }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Writes the address as a `sockaddr_storage` and returns its length.
    @inlinable
    package func write(to storage: inout sockaddr_storage) -> socklen_t {
        storage = sockaddr_storage()
        switch self {
        case .v4(let address, let port):
            var value = sockaddr_in()
            value.sin_family = sa_family_t(AF_INET)
            value.sin_port = port.bigEndian
            value.sin_addr = in_addr(s_addr: address.bigEndian)
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: value, as: sockaddr_in.self) }
            return socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6(let address, let port, let scope):
            var value = sockaddr_in6()
            value.sin6_family = sa_family_t(AF_INET6)
            value.sin6_port = port.bigEndian
            value.sin6_scope_id = scope
            value.sin6_addr = address.in6
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: value, as: sockaddr_in6.self) }
            return socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
    }

    /// Calls `body` with a `sockaddr` pointer valid for the duration of the call.
    package func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result) rethrows -> Result {
        var storage = sockaddr_storage()
        let length = write(to: &storage)
        return try withUnsafePointer(to: &storage) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}

/// The 128 bits of an IPv6 address in network order, stored inline so that an address costs no
/// allocation on the receive path.
public struct IPv6Bits: Hashable, Sendable {
    public var high: UInt64
    public var low: UInt64

    @inlinable
    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    @inlinable
    package init(_ address: in6_addr) {
        var copy = address
        (high, low) = withUnsafeBytes(of: &copy) {
            ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    @inlinable
    package var in6: in6_addr {
        var result = in6_addr()
        withUnsafeMutableBytes(of: &result) {
            $0.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            $0.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
        }
        return result
    }
}
