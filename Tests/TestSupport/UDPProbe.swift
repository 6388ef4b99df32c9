import Glibc

/// A plain UDP socket on 127.0.0.1 that sends whatever bytes a test makes up to a port: garbage,
/// forged packets, or a real client's first flight that it then never follows up.
public final class UDPProbe {
    private let descriptor: Int32
    public let localPort: UInt16

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw ProbeError(errno: errno) }
        var local = UDPProbe.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            close(descriptor)
            throw ProbeError(errno: error)
        }
        self.descriptor = descriptor
        localPort = UInt16(bigEndian: local.sin_port)
    }

    deinit { close(descriptor) }

    public func send(_ bytes: [UInt8], to port: UInt16) {
        var target = UDPProbe.loopback(port: port)
        _ = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    public struct ProbeError: Error { public let errno: Int32 }
}
