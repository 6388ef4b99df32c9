import Foundation
import QuicEngine

/// A self-signed client identity (key and certificate in one PEM file) made by the engine, as
/// chat-client makes its own, with the fingerprint a server sees.
public struct TestIdentity: Sendable {
    public let path: String
    public let fingerprint: String

    public init(name: String = "tester") throws {
        let pem = try TLSIdentity.makeSelfSigned(commonName: name)
        path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-identity-\(UUID().uuidString.prefix(8)).pem").path
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        fingerprint = try TLSIdentity.fingerprint(ofPEM: pem)
    }

    /// Presents this identity on a connection.
    public func apply(to configuration: inout QuicConfiguration) {
        configuration.tls.certificateChainPath = path
        configuration.tls.privateKeyPath = path
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
