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

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    public struct ProbeError: Error { public let errno: Int32 }
}

/// Malformed datagrams for a QUIC server port, in a fixed rotation of kinds, from a seed.
public struct GarbageMaker {
    public enum Kind: CaseIterable, Sendable {
        case empty, randomBytes, truncatedLongHeader, forgedInitial, unknownShortHeader, corruptedInitial, unsupportedVersion
    }

    private var state: UInt64
    /// A real client's Initial: `corruptedInitial` flips one byte of its protected payload, so
    /// the header parses and the server derives keys, but the packet fails authentication.
    private let realInitial: [UInt8]

    public init(seed: UInt64, realInitial: [UInt8]) {
        state = (seed &+ 1) &* 0x9E3779B97F4A7C15
        self.realInitial = realInitial
    }

    private mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    private mutating func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }

    public mutating func make(_ kind: Kind) -> [UInt8] {
        switch kind {
        case .empty:
            return []
        case .randomBytes:
            return randomBytes(Int(next() % 1400))
        case .truncatedLongHeader:
            return Array([0xc0, 0, 0, 0, 1, 8].prefix(Int(next() % 6) + 1))
        case .forgedInitial:
            // Valid-looking version 1 Initial header, garbage protection, full size.
            var bytes: [UInt8] = [0xc3, 0, 0, 0, 1, 8] + randomBytes(8) + [8] + randomBytes(8) + [0, 0x44, 0xd0]
            bytes += randomBytes(1200 - bytes.count)
            return bytes
        case .unknownShortHeader:
            return [0x40] + randomBytes(60)
        case .corruptedInitial:
            var bytes = realInitial
            guard bytes.count > 100 else { return bytes }
            let index = 60 + Int(next() % UInt64(bytes.count - 60))
            bytes[index] ^= UInt8(truncatingIfNeeded: next() | 1)
            return bytes
        case .unsupportedVersion:
            var bytes: [UInt8] = [0xc3, 0x1a, 0x2a, 0x3a, 0x4a, 8] + randomBytes(8) + [8] + randomBytes(8)
            bytes += randomBytes(1200 - bytes.count)
            return bytes
        }
    }

    /// The `index`th datagram of the rotation over every kind.
    public mutating func make(index: Int) -> [UInt8] { make(Kind.allCases[index % Kind.allCases.count]) }
}

import QuicEngine

extension GarbageMaker {
    /// The first datagram a real client sends: a padded Initial carrying a real ClientHello.
    public static func realInitial(alpn: [String] = ["qchat/1"]) throws -> [UInt8] {
        let endpoint = try QuicEndpoint(now: .now())
        let configuration = QuicConfiguration(tls: QuicTLSConfiguration(trustedCAPath: TestCertificates.ca, serverName: "localhost",
                                                                         alpn: alpn))
        _ = try endpoint.connect(to: SocketAddress(host: "127.0.0.1", port: 9)!, from: SocketAddress(host: "127.0.0.1", port: 9)!,
                                 configuration: configuration, now: .now())
        return endpoint.pollTransmit()?.bytes ?? []
    }
}
