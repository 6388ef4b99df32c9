import EventRuntime
@testable import Impairment
import SplitMix
import Testing

/// The pure parts of the proxy, checked without sockets or clocks.
@Suite struct InternalsTests {
    /// One seed gives one sequence of decisions; another seed gives another.
    @Test func plansAreReproducibleFromTheSeed() {
        var profile = ImpairmentProfile()
        profile.lossProbability = 0.2
        profile.duplicateProbability = 0.1
        profile.jitter = .milliseconds(5)
        profile.reorderProbability = 0.1
        func plans(seed: UInt64) -> [[PacketPlan.Copy]] {
            var direction = ImpairedDirection(profile: profile, seed: seed, direction: .up)
            return (0..<1000).map { direction.plan(packetSize: 1200, now: MonotonicTime(nanoseconds: UInt64($0) * 1_000_000)).copies }
        }
        #expect(plans(seed: 1) == plans(seed: 1))
        #expect(plans(seed: 1) != plans(seed: 2))
    }

    /// The bottleneck spaces departures by size ÷ rate and refuses arrivals beyond its queue.
    @Test func bandwidthShaperSpacesAndDrops() {
        var shaper = BandwidthShaper(rate: 1_000_000, queueLimit: 3000)
        func at(_ nanoseconds: UInt64) -> MonotonicTime { MonotonicTime(nanoseconds: nanoseconds) }
        #expect(shaper.departure(ofPacketSized: 1000, arrivingAt: at(0)) == at(1_000_000))
        #expect(shaper.departure(ofPacketSized: 1000, arrivingAt: at(0)) == at(2_000_000))
        #expect(shaper.departure(ofPacketSized: 1000, arrivingAt: at(0)) == at(3_000_000))
        #expect(shaper.departure(ofPacketSized: 1000, arrivingAt: at(0)) == nil)
        #expect(shaper.backlog(at: at(1_500_000)) == 1500)
        #expect(shaper.departure(ofPacketSized: 1000, arrivingAt: at(1_500_000)) == at(4_000_000))
        #expect(shaper.departure(ofPacketSized: 100, arrivingAt: at(10_000_000)) == at(10_100_000))
    }

    /// Corruption flips the configured number of distinct bits, capped by the packet's size.
    @Test func corruptionFlipsDistinctBits() {
        var profile = ImpairmentProfile()
        profile.corruptBits = 12
        var direction = ImpairedDirection(profile: profile, seed: 4, direction: .down)
        var long = [UInt8](repeating: 0, count: 100)
        long.withUnsafeMutableBytes { direction.corrupt($0) }
        #expect(long.map(\.nonzeroBitCount).reduce(0, +) == 12)
        var short: [UInt8] = [0]
        short.withUnsafeMutableBytes { direction.corrupt($0) }
        #expect(short == [0xFF])
    }

    /// Command input split across reads yields whole lines; the unterminated tail comes at the end.
    @Test func commandLinesSurviveSplitReads() {
        var buffer = CommandLineBuffer()
        var lines: [String] = []
        for chunk in ["sta", "ts\nloss 0.", "3\nrebind"] {
            lines += Array(chunk.utf8).withUnsafeBytes { buffer.append($0) }
        }
        #expect(lines == ["stats", "loss 0.3"])
        #expect(buffer.finish() == "rebind")
    }
}
