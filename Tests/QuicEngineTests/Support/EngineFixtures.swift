import TestSupport
import QuicEngine

/// Configurations every engine test starts from.
enum EngineFixtures {
    static let alpn = "qchat-test"
    static let serverAddress = SocketAddress(host: "127.0.0.1", port: 4433)!
    static let clientAddress = SocketAddress(host: "127.0.0.2", port: 50000)!

    /// `keyVariant` 1 is another server identity (another key) signed by the same CA.
    static func serverConfiguration(requireClientCertificates: Bool = false, keyVariant: Int = 0) -> QuicServerConfiguration {
        var tls = QuicTLSConfiguration(certificateChainPath: keyVariant == 0 ? TestCertificates.serverCertificate : TestCertificates.secondServerCertificate,
                                       privateKeyPath: keyVariant == 0 ? TestCertificates.serverKey : TestCertificates.secondServerKey,
                                       alpn: [alpn, "chat"])
        if requireClientCertificates { tls.trustedCAPath = TestCertificates.ca }
        return QuicServerConfiguration(connection: QuicConfiguration(tls: tls))
    }

    static func clientConfiguration(ca: String = TestCertificates.ca, serverName: String? = "localhost") -> QuicConfiguration {
        QuicConfiguration(tls: QuicTLSConfiguration(trustedCAPath: ca, serverName: serverName, alpn: [alpn]))
    }

    /// Deterministic pseudo-random payload.
    static func payload(count: Int, seed: UInt64 = 7) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// FNV-1a, to compare large transfers without keeping both copies.
    struct Checksum {
        private(set) var value: UInt64 = 0xcbf29ce484222325
        private(set) var count = 0
        mutating func add(_ bytes: [UInt8]) {
            for byte in bytes {
                value = (value ^ UInt64(byte)) &* 0x100000001b3
            }
            count += bytes.count
        }
    }
}
