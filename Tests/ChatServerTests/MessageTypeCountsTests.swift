@testable import ChatServer
import ChatProtocol
import Testing

/// Messages counted by type for the metrics page.
@Suite("message type counts")
struct MessageTypeCountsTests {
    /// Version 1 types, rarer ones and unknown ones are each counted; the samples list the given types, then other types counted, then `other`.
    @Test func countsAndSamples() {
        var counts = MessageTypeCounts()
        for type in [MessageType.msg, .msg, .ack, .kick, .whois, nil] { counts.add(type) }
        #expect(counts[.msg] == 2 && counts[.ack] == 1 && counts[.kick] == 1 && counts[.dm] == 0 && counts[nil] == 1)
        let samples = counts.samples([.msg, .dm, .kick]).map { ($0.labels.first?.value ?? "", $0.value) }
        #expect(samples.map(\.0) == ["msg", "dm", "kick", "whois", "other"])
        #expect(samples.map(\.1) == [2, 0, 1, 1, 1])
    }
}
