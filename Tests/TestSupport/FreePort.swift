import Glibc

/// A loopback port the kernel just handed out and took back: free for a server the test starts
/// next, unless someone races for it.
public enum FreePort {
    public struct NoPort: Error {}

    public static func tcp() throws -> UInt16 { try next(type: Int32(SOCK_STREAM.rawValue)) }

    public static func udp() throws -> UInt16 { try next(type: Int32(SOCK_DGRAM.rawValue)) }

    private static func next(type: Int32) throws -> UInt16 {
        let descriptor = socket(AF_INET, type, 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw NoPort() }
        return UInt16(bigEndian: address.sin_port)
    }
}
