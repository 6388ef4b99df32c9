import Impairment
import Testing

extension ProxySuite {
    @Suite struct LossTests {
        /// Seeded 30 % loss over 2000 packets lands within four standard deviations, and the server gets exactly the rest.
        @Test func lossRateIsWithinStatisticalBounds() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address, ["--up-loss", "0.3", "--seed", "42"])
            let client = try TestClient(proxy: proxy.address)
            let total = 2000
            for sequence in 0..<total { try client.send(NumberedPacket.make(sequence, size: 100)) }
            let settled = try #require(proxy.statistics { $0.up.receivedPackets == total && $0.down.receivedPackets == $0.up.forwardedPackets })
            let rate = Double(settled.up.droppedByLoss) / Double(total)
            let standardDeviation = (0.3 * 0.7 / Double(total)).squareRoot()
            #expect(abs(rate - 0.3) < 4 * standardDeviation, "loss rate \(rate)")
            #expect(settled.up.forwardedPackets + settled.up.droppedByLoss == total)
            #expect(echo.received.count == settled.up.forwardedPackets)
            #expect(settled.down.droppedPackets == 0)
        }

        /// The same seed drops exactly the same packets again; the drop pattern depends only on seed and traffic.
        @Test func sameSeedDropsSamePackets() throws {
            func survivors(seed: Int) throws -> [Int] {
                let echo = try EchoServer()
                let proxy = try RunningProxy(server: echo.address, ["--loss", "0.5", "--seed", "\(seed)"])
                let client = try TestClient(proxy: proxy.address)
                for sequence in 0..<300 { try client.send(NumberedPacket.make(sequence, size: 40)) }
                let settled = try #require(proxy.statistics { $0.up.receivedPackets == 300 })
                #expect(echo.waitForPackets(settled.up.forwardedPackets, timeout: 5))
                return echo.received.map { NumberedPacket.sequence(of: $0.bytes) }
            }
            let first = try survivors(seed: 7)
            let second = try survivors(seed: 7)
            let other = try survivors(seed: 8)
            #expect(first == second)
            #expect(first != other)
            #expect(first.count > 100 && first.count < 200)
        }
    }
}
