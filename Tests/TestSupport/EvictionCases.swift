/// The cases of the file eviction rule (ChatServerCore's `FileEvictionRule`, PROTOCOL.md section 9
/// notes) that every catalog is tested with: in memory and SQLite (`FileCatalogTests`), Redis's
/// scripts (`FileStoreScriptTests`). Plain values: each suite makes its own records of them.
public struct EvictionCase: Sendable, CustomStringConvertible {
    /// A stored file: its owner key (`account:…`, `peer:…`) and address (empty for an exempt one).
    public struct File: Sendable {
        public let id: String
        public let size: Int64
        public let ts: Int64
        public let owner: String
        public let address: String

        init(_ id: String, _ size: Int64, ts: Int64, _ owner: String, address: String = "") {
            (self.id, self.size, self.ts, self.owner, self.address) = (id, size, ts, owner, address)
        }
    }

    public let name: String
    /// In the order they were stored.
    public let files: [File]
    /// The uploader's party and the bytes it adds; the file that goes first.
    public let uploaderParty: String
    public let adding: Int64
    public let evicted: String

    public var description: String { name }

    public static let all: [EvictionCase] = [
        EvictionCase(name: "one party: its oldest file", files: [File("g1", 100, ts: 5, "peer:a"), File("g2", 100, ts: 6, "peer:b")],
                     uploaderParty: "guests", adding: 0, evicted: "g1"),
        EvictionCase(name: "an address's guests are one party", files: addressGuests, uploaderParty: "address:10.0.0.9", adding: 100,
                     evicted: "g1"),
        EvictionCase(name: "the uploader's party counts what it adds", files: addressGuests, uploaderParty: "address:10.0.0.2", adding: 250,
                     evicted: "member"),
        // Issue 23, finding 7 with accounts: four fresh accounts, one party with the guests.
        EvictionCase(name: "accounts made after a member's file are newcomers", files: freshAccounts(size: 100),
                     uploaderParty: "account:f3", adding: 100, evicted: "f0"),
        EvictionCase(name: "newcomers each holding less than the member", files: freshAccounts(size: 90),
                     uploaderParty: "account:f3", adding: 90, evicted: "f0"),
        EvictionCase(name: "accounts older than the member's file are no newcomers; newcomers holding less lose nothing",
                     files: [File("bob", 90, ts: 1, "account:bob"), File("member", 100, ts: 2, "account:alice"), File("f0", 40, ts: 3, "account:f0")],
                     uploaderParty: "account:f1", adding: 50, evicted: "member"),
        EvictionCase(name: "the member's own upload takes its own oldest file",
                     files: [File("member", 100, ts: 1, "account:alice"), File("f0", 100, ts: 2, "account:f0")],
                     uploaderParty: "account:alice", adding: 100, evicted: "member"),
        EvictionCase(name: "the guests are newcomers, their oldest file first",
                     files: [File("guest", 60, ts: 1, "peer:x"), File("member", 100, ts: 5, "account:alice"), File("f0", 50, ts: 6, "account:f0")],
                     uploaderParty: "guests", adding: 0, evicted: "guest"),
        EvictionCase(name: "an address is never a newcomer",
                     files: [File("member", 100, ts: 1, "account:alice"), File("a1", 90, ts: 2, "peer:a", address: "10.0.0.9")],
                     uploaderParty: "address:10.0.0.9", adding: 10, evicted: "member"),
    ]

    /// A member's file (an address of its own), then three guests' of another address.
    static let addressGuests = [File("member", 100, ts: 1, "account:alice", address: "10.0.0.2"),
                                File("g1", 100, ts: 10, "peer:g1", address: "10.0.0.9"), File("g2", 100, ts: 11, "peer:g2", address: "10.0.0.9"),
                                File("g3", 100, ts: 12, "peer:g3", address: "10.0.0.9")]

    /// A member's 100-byte file, then three accounts' files of `size`, all from exempt addresses.
    static func freshAccounts(size: Int64) -> [File] {
        [File("member", 100, ts: 1, "account:alice")] + (0..<3).map { File("f\($0)", size, ts: Int64(2 + $0), "account:f\($0)") }
    }
}
