import Foundation
import Impairment
import Testing

extension ProxySuite {
    @Suite struct ExecutableTests {
        /// udp-impair prints READY with its port, relays, answers stdin commands, and on SIGTERM prints stats and exits 0.
        @Test func readyCommandsAndStatsOnSigterm() throws {
            let echo = try EchoServer()
            let child = try ImpairProcess(["--listen", "127.0.0.1:0", "--server", "\(echo.address)", "--seed", "9"])
            let ready = try #require(child.line(startingWith: "READY "))
            let port = try #require(UInt16(ready.dropFirst("READY ".count)))
            let client = try TestClient(proxy: .loopback(1, port: port))
            #expect(try client.roundTrip("through the binary") == "through the binary")
            child.send("rebind")
            #expect(child.line(startingWith: "OK rebind") == "OK rebind 1")
            #expect(try client.roundTrip("after rebind") == "after rebind")
            #expect(echo.sources.count == 2)
            child.send("stats")
            let live = try #require(child.line(startingWith: "{"))
            let liveJSON = try #require(try JSONSerialization.jsonObject(with: Data(live.utf8)) as? [String: Any])
            #expect(liveJSON["seed"] as? Int == 9 && liveJSON["rebinds"] as? Int == 1)
            child.send("nonsense")
            #expect(child.line(startingWith: "ERROR") != nil)
            child.terminate()
            let final = try #require(child.line(startingWith: "{"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(final.utf8)) as? [String: Any])
            let up = try #require(json["up"] as? [String: Any])
            #expect(up["forwarded_packets"] as? Int == 2)
            #expect((json["clients"] as? [[String: Any]])?.first?["down_packets"] as? Int == 2)
            #expect(child.waitForExit() == 0)
        }

        /// --exit-on-stdin-close stops the proxy with final stats when its stdin closes.
        @Test func exitsWhenStdinCloses() throws {
            let child = try ImpairProcess(["--server", "127.0.0.1:9", "--exit-on-stdin-close"])
            #expect(child.line(startingWith: "READY ") != nil)
            child.closeInput()
            #expect(child.line(startingWith: "{\"type\":\"stats\"") != nil)
            #expect(child.waitForExit() == 0)
        }

        /// A bad flag exits with status 2 and --help exits 0 with the usage text.
        @Test func badFlagsAndHelp() throws {
            let bad = try ImpairProcess(["--server", "127.0.0.1:9", "--los", "0.1"])
            #expect(bad.waitForExit() == 2)
            let help = try ImpairProcess(["--help"])
            #expect(help.line(startingWith: "usage: udp-impair") != nil)
            #expect(help.waitForExit() == 0)
        }
    }
}
