import ChatProtocol
import ChatServerCore
import Testing

/// `rooms` with thousands of rooms (issue 23 item 16): one listing is built and encoded, and
/// every asker is sent those same bytes, until the rooms change; while they keep changing it is
/// rebuilt at most once a second. Counted in listings built (distinct payloads), not in time.
@Suite("rooms: one listing for every asker")
struct RoomDirectoryTests {
    /// 3,000 rooms with a member each, and 20 askers in the lobby.
    private static func crowded() throws -> Harness {
        let harness = try Harness.floodFree()
        for index in 0..<3_000 { harness.hello(UInt64(1_000 + index), nick: "u\(index)", room: "room\(index)") }
        for asker in 1...20 { harness.hello(UInt64(asker), nick: "asker\(asker)") }
        return harness
    }

    /// How many distinct listings (payload objects) among `payloads`, which are all kept alive
    /// meanwhile so that no address is reused.
    private static func distinct(_ payloads: [SharedPayload]) -> Int { Set(payloads.map(ObjectIdentifier.init)).count }

    /// The answer `client` got to `rooms`, with its payload.
    private static func list(_ harness: Harness, from client: ClientID) throws -> Outbox.Delivery {
        try #require(harness.send(.listRooms(), from: client).deliveries.first { $0.client == client && $0.message.type == "rooms" })
    }

    /// 200 requests from 20 askers within a second share one listing: the very same bytes,
    /// built once; it holds the 1,000 largest rooms (about 60 KB).
    @Test func requestsShareOneListing() throws {
        let harness = try Self.crowded()
        var payloads: [SharedPayload] = []
        var first: Outbox.Delivery?
        for _ in 0..<10 {
            for asker in 1...20 {
                let answer = try Self.list(harness, from: UInt64(asker))
                payloads.append(answer.payload)
                if first == nil { first = answer }
            }
            harness.advance(50)
        }
        #expect(Self.distinct(payloads) == 1, "\(Self.distinct(payloads)) listings built for 200 requests")
        let answer = try #require(first)
        #expect(answer.message.rooms?.count == ChatLimits.maxRoomsListed)
        #expect(answer.message.rooms?.first == RoomListing(room: "lobby", members: 20))
        #expect(answer.payload.bytes.count > 30_000 && answer.payload.bytes.count < ChatLimits.maxStreamMessageBytes,
                "\(answer.payload.bytes.count) bytes")
    }

    /// A room that appears is listed within a second: until then the listing built before is
    /// served; once a second has passed the next request builds a new one. With no change, the
    /// same listing stays, however long.
    @Test func changesAppearWithinASecond() throws {
        let harness = try Self.crowded()
        let before = try Self.list(harness, from: 1)
        harness.send(.join(room: "fresh"), from: 2)
        harness.send(.join(room: "fresh"), from: 3)
        harness.advance(900)
        let stale = try Self.list(harness, from: 1)
        #expect(stale.payload === before.payload)
        harness.advance(100)
        let fresh = try Self.list(harness, from: 1)
        #expect(fresh.payload !== before.payload)
        #expect(fresh.message.rooms?.contains(RoomListing(room: "fresh", members: 2)) == true)
        harness.advance(60_000)
        #expect(try Self.list(harness, from: 4).payload === fresh.payload)
    }

    /// The bound: 1,000 requests over 10 s with a room joined and left between every two of them
    /// (the listing is always out of date) build at most one listing a second.
    @Test func buildsAtMostOneListingASecond() throws {
        let harness = try Self.crowded()
        var payloads: [SharedPayload] = []
        for request in 0..<1_000 {
            harness.send(request % 2 == 0 ? .join(room: "churn") : .part(room: "churn"), from: 5)
            payloads.append(try Self.list(harness, from: UInt64(1 + request % 20)).payload)
            harness.advance(10)
        }
        #expect(Self.distinct(payloads) <= 11, "\(Self.distinct(payloads)) listings built in 10 s")
        #expect(Self.distinct(payloads) >= 10)
    }
}
