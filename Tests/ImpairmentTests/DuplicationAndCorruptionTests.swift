import Impairment
import Testing

extension ProxySuite {
    @Suite struct DuplicationAndCorruptionTests {
        /// With duplicate 1 each packet reaches the server twice and the client gets both echoes.
        @Test func duplicationDoublesPackets() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-duplicate", "1"])
            let client = try TestClient(proxy: proxy.address)
            for sequence in 0..<10 { try client.send(NumberedPacket.make(sequence, size: 50)) }
            #expect(echo.waitForPackets(20, timeout: 5))
            var replies: [Int] = []
            while let reply = try client.receive(timeout: 0.3) { replies.append(NumberedPacket.sequence(of: reply)) }
            #expect(replies.sorted() == (0..<10).flatMap { [$0, $0] })
            let statistics = try #require(proxy.statistics())
            #expect(statistics.up.duplicated == 10)
            #expect(statistics.up.forwardedPackets == 20)
            #expect(statistics.down.receivedPackets == 20 && statistics.down.duplicated == 0)
        }

        /// Corruption flips exactly the configured number of bits in each packet and counts them.
        @Test func corruptionFlipsBits() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-corrupt", "1", "--up-corrupt-bits", "3"])
            let client = try TestClient(proxy: proxy.address)
            for sequence in 0..<20 {
                let sent = NumberedPacket.make(sequence, size: 64)
                try client.send(sent)
                let reply = try #require(try client.receive())
                #expect(reply.count == sent.count)
                let flippedBits = zip(sent, reply).map { ($0 ^ $1).nonzeroBitCount }.reduce(0, +)
                #expect(flippedBits == 3)
            }
            let statistics = try #require(proxy.statistics())
            #expect(statistics.up.corrupted == 20)
            #expect(statistics.down.corrupted == 0)
        }
    }
}
