import Foundation
import Impairment
import Testing

extension ProxySuite {
    @Suite struct StatisticsTests {
        /// The stats JSON parses, has every documented key, and its counters add up per direction and per client.
        @Test func statisticsJSONAddsUp() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(
                server: echo.address, ["--loss", "0.2", "--duplicate", "0.2", "--corrupt", "0.1", "--seed", "5"])
            let clients = try (0..<2).map { _ in try TestClient(proxy: proxy.address) }
            for sequence in 0..<200 {
                for client in clients { try client.send(NumberedPacket.make(sequence, size: 60 + sequence % 50)) }
            }
            // Settled: everything sent has arrived, every echo has come back, nothing is queued.
            #expect(proxy.statistics {
                $0.up.receivedPackets == 400 && $0.down.receivedPackets == $0.up.forwardedPackets
                    && $0.up.queuedPackets == 0 && $0.down.queuedPackets == 0
            } != nil)
            let line = proxy.perform("stats")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(json["type"] as? String == "stats")
            #expect(json["seed"] as? Int == 5)
            #expect(json["server"] as? String == "\(echo.address)")
            for name in ["up", "down"] {
                let direction = try #require(json[name] as? [String: Any])
                let dropped = try #require(direction["dropped"] as? [String: Int])
                #expect(Set(dropped.keys) == ["loss", "blackhole", "queue_overflow", "send_error", "unknown_source"])
                func count(_ key: String) -> Int { direction[key] as? Int ?? -1 }
                #expect(count("dropped_packets") == dropped.values.reduce(0, +))
                #expect(
                    count("received_packets") + count("duplicated")
                        == count("forwarded_packets") + count("dropped_packets") + count("queued_packets"), "\(name)")
                #expect(count("corrupted") >= 0 && count("reordered") == 0 && count("queued_bytes") == 0)
            }
            let up = try #require(json["up"] as? [String: Any])
            let down = try #require(json["down"] as? [String: Any])
            #expect((up["dropped"] as? [String: Int])?["loss"] ?? 0 > 0)
            #expect(up["duplicated"] as? Int ?? 0 > 0)
            let listed = try #require(json["clients"] as? [[String: Any]])
            #expect(Set(listed.compactMap { $0["address"] as? String }) == Set(clients.map { "\($0.address)" }))
            func sum(_ key: String) -> Int { listed.reduce(0) { $0 + ($1[key] as? Int ?? 0) } }
            #expect(sum("up_packets") == up["received_packets"] as? Int)
            #expect(sum("up_bytes") == up["received_bytes"] as? Int)
            #expect(sum("up_forwarded_packets") == up["forwarded_packets"] as? Int)
            #expect(sum("up_forwarded_bytes") == up["forwarded_bytes"] as? Int)
            #expect(sum("down_packets") == down["received_packets"] as? Int)
            #expect(sum("down_bytes") == down["received_bytes"] as? Int)
            #expect(sum("down_forwarded_packets") == down["forwarded_packets"] as? Int)
            #expect(sum("down_forwarded_bytes") == down["forwarded_bytes"] as? Int)
            for client in listed { #expect(client["upstream"] is String && client["rebinds"] as? Int == 0) }
        }

        /// Per-client bytes expose a server's amplification: down_bytes against up_forwarded_bytes.
        @Test func perClientBytesShowAmplification() throws {
            let echo = try EchoServer(amplification: 3)
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            for sequence in 0..<5 {
                try client.send(NumberedPacket.make(sequence, size: 100))
                #expect(try client.receive()?.count == 300)
            }
            let counted = try #require(proxy.statistics()?.client(client.address))
            #expect(counted.upForwardedBytes == 500 && counted.upBytes == 500)
            #expect(counted.downBytes == 1500 && counted.downForwardedBytes == 1500)
            #expect(counted.downBytes == 3 * counted.upForwardedBytes)
        }

        /// Stopping returns final statistics that match what the last stats command showed.
        @Test func finalStatisticsOnStop() throws {
            let echo = try EchoServer()
            let proxy = try RunningProxy(server: echo.address)
            let client = try TestClient(proxy: proxy.address)
            #expect(try client.roundTrip("one") == "one")
            let live = try #require(proxy.statistics())
            let final = try #require(proxy.stop())
            #expect(final.up == live.up && final.down == live.down && final.clients == live.clients)
            #expect(proxy.proxy.perform("stats", timeout: 1) == nil)
        }
    }
}
