import Testing
@testable import ServiceDiscovery

struct TXTRecordTests {
    /// Keys compare case-insensitively and the first of a repeated key wins (RFC 6763 section 6.4).
    @Test func firstKeyWins() {
        let record = TXTRecord(strings: ["V=1.1", "v=9", "flag", "alpn=qchat/1"])
        #expect(record["v"] == "1.1")
        #expect(record["flag"] == "")
        #expect(record["ALPN"] == "qchat/1")
        #expect(record["fp"] == nil)
    }

    /// A string over 255 bytes or without a key is refused when a record is made.
    @Test func refusesLongStrings() {
        #expect(throws: TXTRecordError.self) { try TXTRecord(["k": String(repeating: "x", count: 254)]) }
        #expect(throws: TXTRecordError.self) { try TXTRecord(["": "x"]) }
        #expect((try? TXTRecord(["k": String(repeating: "x", count: 253)]))?.strings.first?.utf8.count == 255)
    }
}
