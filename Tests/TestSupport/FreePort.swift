import Glibc

/// A loopback port the kernel just handed out and took back: free for a server the test starts
/// next, unless someone races for it.
public enum FreePort {
    public struct NoPort: Error {}

    public static func tcp() throws -> UInt16 { try next(type: Int32(SOCK_STREAM.rawValue)) }

    public static func udp() throws -> UInt16 { try next(type: Int32(SOCK_DGRAM.rawValue)) }

    /// The first of `count` consecutive free loopback TCP ports (a script that numbers its
    /// listeners from a base: `make run-cluster`'s metrics endpoints).
    public static func consecutiveTCP(_ count: Int) throws -> UInt16 {
        for _ in 0..<100 {
            let first = try tcp()
            guard Int(first) + count <= Int(UInt16.max) else { continue }
            var held: [Int32] = []
            defer { for descriptor in held { close(descriptor) } }
            for offset in 0..<count {
                guard let descriptor = try? bound(type: Int32(SOCK_STREAM.rawValue), port: first + UInt16(offset)).descriptor else { break }
                held.append(descriptor)
            }
            if held.count == count { return first }
        }
        throw NoPort()
    }

    private static func next(type: Int32) throws -> UInt16 {
        let (descriptor, port) = try bound(type: type, port: 0)
        close(descriptor)
        return port
    }

    /// A socket bound to loopback `port` (0: any), and the port it got.
    private static func bound(type: Int32, port: UInt16) throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, type, 0)
        guard descriptor >= 0 else { throw NoPort() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else {
            close(descriptor)
            throw NoPort()
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}
