import QuicEngine
import SplitMix

/// Malformed datagrams for a QUIC server port, in a fixed rotation of kinds, from a seed.
public struct GarbageMaker {
    public enum Kind: CaseIterable, Sendable {
        case empty, randomBytes, truncatedLongHeader, forgedInitial, unknownShortHeader, corruptedInitial, unsupportedVersion
    }

    private var random: SplitMix64
    /// A real client's Initial: `corruptedInitial` flips one byte of its protected payload, so
    /// the header parses and the server derives keys, but the packet fails authentication.
    private let realInitial: [UInt8]

    public init(seed: UInt64, realInitial: [UInt8]) {
        random = SplitMix64(seed: seed)
        self.realInitial = realInitial
    }

    private mutating func next() -> UInt64 { random.next() }

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


extension GarbageMaker {
    /// The first datagram a real client sends: a padded Initial carrying a real ClientHello.
    public static func realInitial(alpn: [String] = ["qchat/1"]) throws -> [UInt8] {
        let endpoint = try QuicEndpoint(now: .now())
        let configuration = QuicConfiguration(tls: QuicTLSConfiguration(trustedCAPath: TestCertificates.ca, serverName: "localhost",
                                                                         alpn: alpn))
        _ = try endpoint.connect(to: SocketAddress(host: "127.0.0.1", port: 9)!, from: SocketAddress(host: "127.0.0.1", port: 9)!,
                                 configuration: configuration, now: .now())
        return endpoint.pollTransmit(now: .now())?.bytes ?? []
    }
}
