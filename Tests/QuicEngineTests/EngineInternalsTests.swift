import QuicSimulation
import Testing

@testable import QuicEngine

/// The engine's small internal mechanisms, on their own.
@Suite struct EngineInternalsTests {
    private static func id(_ bytes: [UInt8]) -> ConnectionID { bytes.withUnsafeBytes { ConnectionID($0) } }

    /// A reset token is 16 bytes, the same for the same secret and ID (a restarted server agrees
    /// with its earlier self), different for another ID, another length or another secret.
    @Test func statelessResetTokensArePseudoRandomFunctionsOfTheID() throws {
        let secret = [UInt8](repeating: 3, count: 32)
        let tokens = try StatelessResetTokens(secret: secret)
        let again = try StatelessResetTokens(secret: secret)
        let other = try StatelessResetTokens(secret: [UInt8](repeating: 4, count: 32))
        let first = Self.id(Array(0..<18))
        let token = tokens.token(for: first)
        #expect(token.count == 16)
        #expect(again.token(for: first) == token)
        #expect(tokens.token(for: first) == token, "the cipher state does not carry over between tokens")
        #expect(tokens.token(for: Self.id(Array(1..<19))) != token)
        #expect(tokens.token(for: Self.id(Array(0..<17))) != token)
        #expect(other.token(for: first) != token)
    }

    /// Random bytes come out unpredictable (no repeats over many draws), across buffer refills,
    /// for any request size.
    @Test func randomBytesNeverRepeat() {
        let random = RandomBytes()
        var seen = Set<UInt64>()
        for _ in 0..<5_000 { seen.insert(random.next()) }
        #expect(seen.count == 5_000)
        let big = random.bytes(10_000)
        #expect(Set(big).count == 256)
        let ids = (0..<1_000).map { _ in ConnectionID.random(length: 18, from: random) }
        #expect(Set(ids).count == 1_000 && ids.allSatisfy { $0.length == 18 })
    }

    /// A server frees its TLS session once the application has heard of the handshake (what it
    /// may ask was copied out); the client keeps its own, which still takes the session ticket.
    @Test func serverFreesItsTLSSessionAfterTheHandshake() throws {
        let pair = try EnginePair()
        #expect(pair.handshake())
        let server = try #require(pair.serverConnections.first)
        #expect(server.tls == nil)
        #expect(server.negotiatedALPN == EngineFixtures.alpn)
        #expect(pair.connection.tls != nil)
        #expect(pair.run(for: .seconds(2), until: { pair.connection.sessionTicket != nil }))
        // The connection keeps working: an echo round trip.
        let stream = try pair.connection.openStream()
        try pair.connection.write(Array("after".utf8), to: stream)
        var echoed = 0
        #expect(pair.run(for: .seconds(5), until: { echoed == 5 }, client: { _, event in
            if case .streamData(stream, let bytes, _) = event { echoed += bytes.count }
        }))
    }
}
