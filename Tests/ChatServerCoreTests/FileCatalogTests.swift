import Foundation
import Testing

@testable import ChatServerCore
@testable import SQLiteStorage
import TestSupport

/// The file records and partial uploads of PROTOCOL.md section 9, in both catalogs (in memory, and
/// in the `--db` file beside the history), and the schema migration that adds them to a version 1
/// database.
struct FileCatalogTests {
    enum Kind: String, CaseIterable { case memory, sqlite }

    /// A catalog with its history store (and the directory that holds its file, kept alive).
    final class Fixture {
        let history: any HistoryStore
        let catalog: any FileCatalog
        let directory: TemporaryDirectory

        init(_ kind: Kind) throws {
            directory = try TemporaryDirectory()
            switch kind {
            case .memory:
                let memory = InMemoryHistoryStore()
                history = memory
                catalog = InMemoryFileCatalog(history: memory)
            case .sqlite:
                let store = try SQLiteHistoryStore(path: directory.file("chat.db"))
                history = store
                catalog = store
            }
        }
    }

    static func digest(_ byte: Character) -> String { String(repeating: byte, count: 64) }

    static func file(_ id: String, sha: Character, size: Int64, ts: Int64, room: String? = "dev", owner: String = "peer:P",
                     address: String = "", peer: String = "P", upload: String? = nil, recipient: String? = nil) -> StoredFile {
        StoredFile(id: id, sha256: digest(sha), size: size, name: "\(id).bin", room: room, seq: room == nil ? nil : ts, ts: ts,
                   sender: "alice", senderAccount: nil, uploaderPeer: peer, uploadID: upload ?? "u-\(id)", owner: owner, address: address,
                   recipient: recipient, recipientAccount: nil, recipientPeer: recipient.map { _ in "Q" })
    }

    /// A room file's record and its `file` event are stored together; both read back whole.
    @Test(arguments: Kind.allCases)
    func roomFileAndItsEventRoundTrip(_ kind: Kind) throws {
        let fixture = try Fixture(kind)
        let stored = Self.file("f1", sha: "a", size: 10, ts: 1)
        let event = StoredEvent(room: "dev", seq: 1, ts: 1, kind: .file, sender: "alice", text: "f1.bin", id: "u-f1", file: "f1",
                                size: 10, sha256: Self.digest("a"))
        try fixture.catalog.storeFile(stored, event: event, retainPerRoom: 100)
        #expect(try fixture.catalog.file(id: "f1") == stored)
        #expect(try fixture.catalog.file(uploadedBy: "P", id: "u-f1") == stored)
        #expect(try fixture.catalog.file(uploadedBy: "other", id: "u-f1") == nil)
        #expect(try fixture.catalog.file(id: "nope") == nil)
        let events = try fixture.history.events(inRoom: "dev", after: nil, before: nil, limit: 10)
        #expect(events == [event])
        let replayed = events[0].message(replay: true)
        #expect(replayed.type == "file" && replayed.file == "f1" && replayed.size == 10 && replayed.sha256 == Self.digest("a"))
        let privateFile = Self.file("f2", sha: "b", size: 3, ts: 2, room: nil, recipient: "bob")
        try fixture.catalog.storeFile(privateFile, event: nil, retainPerRoom: 100)
        #expect(try fixture.catalog.file(id: "f2") == privateFile)
    }

    /// The same bytes count once; an owner's bytes count every file; removing the last file of a
    /// content says its bytes may go; with one party, the oldest file comes first.
    @Test(arguments: Kind.allCases)
    func contentIsCountedOnceAndOldestGoesFirst(_ kind: Kind) throws {
        let catalog = try Fixture(kind).catalog
        try catalog.storeFile(Self.file("f1", sha: "a", size: 100, ts: 5), event: nil, retainPerRoom: 100)
        try catalog.storeFile(Self.file("f2", sha: "a", size: 100, ts: 6, owner: "account:bob"), event: nil, retainPerRoom: 100)
        try catalog.storeFile(Self.file("f3", sha: "c", size: 7, ts: 4), event: nil, retainPerRoom: 100)
        #expect(try catalog.usage(of: .everyone, exceptPartial: nil).fileBytes == 107)
        #expect(try catalog.usage(of: .owner("peer:P"), exceptPartial: nil).fileBytes == 107)
        #expect(try catalog.usage(of: .owner("account:bob"), exceptPartial: nil).fileBytes == 100)
        #expect(try catalog.hasContent(Self.digest("a")))
        #expect(try catalog.nextEviction(uploaderParty: "peer:P", adding: 0)?.id == "f3")
        #expect(try catalog.removeFile(id: "f3"))
        #expect(try catalog.nextEviction(uploaderParty: "peer:P", adding: 0)?.id == "f1")
        #expect(try !catalog.removeFile(id: "f1"))
        #expect(try catalog.hasContent(Self.digest("a")))
        #expect(try catalog.removeFile(id: "f2"))
        #expect(try !catalog.hasContent(Self.digest("a")))
        #expect(try catalog.usage(of: .everyone, exceptPartial: nil).fileBytes == 0)
        #expect(try !catalog.removeFile(id: "f2"))
        #expect(try catalog.nextEviction(uploaderParty: "peer:P", adding: 0) == nil)
    }

    /// Eviction takes the oldest file of the party holding the most bytes (an address's uploaders
    /// together; from an exempt address an account alone, all guests together), the uploader's
    /// party counting what it adds; among equal holders, the one whose oldest file is oldest. An
    /// address counts its files.
    @Test(arguments: Kind.allCases)
    func evictionTakesFromTheLargestHolderFirst(_ kind: Kind) throws {
        let catalog = try Fixture(kind).catalog
        // A member's file, the oldest of all, and three guests (new peer ids) from one address.
        try catalog.storeFile(Self.file("member", sha: "a", size: 100, ts: 1, owner: "account:alice", address: "10.0.0.2"),
                              event: nil, retainPerRoom: 100)
        for (index, guest) in ["g1", "g2", "g3"].enumerated() {
            try catalog.storeFile(Self.file(guest, sha: Character(String(index + 1)), size: 100, ts: Int64(10 + index), owner: "peer:\(guest)",
                                            address: "10.0.0.9", peer: guest), event: nil, retainPerRoom: 100)
        }
        #expect(try catalog.usage(of: .address("10.0.0.9"), exceptPartial: nil).fileBytes == 300)
        #expect(try catalog.usage(of: .address("10.0.0.2"), exceptPartial: nil).fileBytes == 100)
        // A fourth guest of that address pushes out its own party's oldest, not the member's.
        #expect(try catalog.nextEviction(uploaderParty: "address:10.0.0.9", adding: 100)?.id == "g1")
        // Another address holding nothing yet: still the largest holder's oldest.
        #expect(try catalog.nextEviction(uploaderParty: "address:10.0.0.7", adding: 100)?.id == "g1")
        // The member's party, counting a 250-byte upload, holds the most: its own file goes.
        #expect(try catalog.nextEviction(uploaderParty: "address:10.0.0.2", adding: 250)?.id == "member")
        // Guests of exempt addresses are one party, whatever their peer ids; equal holders: the
        // oldest file of the two parties.
        try catalog.storeFile(Self.file("exempt1", sha: "e", size: 200, ts: 5, owner: "peer:X", peer: "X"), event: nil, retainPerRoom: 100)
        #expect(try catalog.nextEviction(uploaderParty: "peer:Y", adding: 0)?.id == "g1")
        try catalog.storeFile(Self.file("exempt2", sha: "f", size: 100, ts: 20, owner: "peer:Z", peer: "Z"), event: nil, retainPerRoom: 100)
        #expect(try catalog.nextEviction(uploaderParty: FileOwner.exemptGuests, adding: 0)?.id == "exempt1")
        // An account from an exempt address is a party of its own.
        #expect(try catalog.nextEviction(uploaderParty: "account:bob", adding: 400)?.id == "exempt1")
    }

    /// ``FileEvictionRule`` on the cases every catalog is tested with (Redis's scripts in
    /// `FileStoreScriptTests`): the file each case's upload pushes out first.
    @Test(arguments: Kind.allCases, EvictionCase.all)
    func evictionFollowsTheSharedCases(_ kind: Kind, _ example: EvictionCase) throws {
        let catalog = try Fixture(kind).catalog
        for (index, file) in example.files.enumerated() {
            let peer = String(file.owner.split(separator: ":").last ?? "p")
            try catalog.storeFile(StoredFile(id: file.id, sha256: String(format: "%064x", index + 1), size: file.size, name: "\(file.id).bin",
                                             room: nil, seq: nil, ts: file.ts, sender: peer, senderAccount: nil, uploaderPeer: peer,
                                             uploadID: "u-\(file.id)", owner: file.owner, address: file.address),
                                  event: nil, retainPerRoom: 100)
        }
        #expect(try catalog.nextEviction(uploaderParty: example.uploaderParty, adding: example.adding)?.id == example.evicted)
    }

    /// Partial uploads are keyed by peer and id (a new one replaces the old), found by age, and
    /// what they are charged counts toward quotas, per owner, per address and for everyone.
    @Test(arguments: Kind.allCases)
    func partialUploadsRoundTrip(_ kind: Kind) throws {
        let catalog = try Fixture(kind).catalog
        let first = PartialUpload(key: "k1", peer: "P", id: "u1", owner: "peer:P", address: "10.0.0.1", room: "dev", recipient: nil,
                                  name: "a", size: 50, sha256: Self.digest("a"), updated: 10)
        let other = PartialUpload(key: "k2", peer: "Q", id: "u1", owner: "account:q", room: nil, recipient: "bob", name: "b",
                                  size: 20, sha256: Self.digest("b"), updated: 30, charged: 4)
        try catalog.savePartial(first)
        try catalog.savePartial(other)
        #expect(try catalog.partial(peer: "P", id: "u1") == first)
        #expect(try catalog.partial(peer: "Q", id: "u1")?.charged == 4)
        #expect(try catalog.partial(peer: "P", id: "u2") == nil)
        #expect(try catalog.usage(of: .everyone, exceptPartial: nil) == FileUsage(partialBytes: 54, partials: 2))
        #expect(try catalog.usage(of: .owner("peer:P"), exceptPartial: nil) == FileUsage(partialBytes: 50, partials: 1))
        #expect(try catalog.usage(of: .address("10.0.0.1"), exceptPartial: nil) == FileUsage(partialBytes: 50, partials: 1))
        #expect(try catalog.usage(of: .address("10.0.0.1"), exceptPartial: "k1") == FileUsage())
        #expect(try catalog.usage(of: .everyone, exceptPartial: "k1") == FileUsage(partialBytes: 4, partials: 1))
        #expect(try catalog.partials(updatedBefore: 20) == [first])
        var restarted = first
        restarted.key = "k3"
        restarted.updated = 40
        try catalog.savePartial(restarted)
        #expect(try catalog.partial(peer: "P", id: "u1") == restarted)
        #expect(try catalog.usage(of: .everyone, exceptPartial: nil) == FileUsage(partialBytes: 54, partials: 2))
        try catalog.removePartial(key: "k3")
        #expect(try catalog.partial(peer: "P", id: "u1") == nil)
        #expect(try catalog.partials(updatedBefore: 100) == [other])
    }

    /// Two uploads with the same peer and id cannot both be stored in the database (the receipt is unique).
    @Test func uploadReceiptIsUniqueOnDisk() throws {
        let catalog = try Fixture(.sqlite).catalog
        try catalog.storeFile(Self.file("f1", sha: "a", size: 1, ts: 1, upload: "same"), event: nil, retainPerRoom: 100)
        #expect(throws: HistoryStoreError.self) {
            try catalog.storeFile(Self.file("f2", sha: "b", size: 1, ts: 2, upload: "same"), event: nil, retainPerRoom: 100)
        }
        #expect(try catalog.file(id: "f2") == nil)
    }

    /// A failed record leaves no `file` event behind: the two commit together or not at all.
    @Test func failedRecordStoresNoEvent() throws {
        let fixture = try Fixture(.sqlite)
        try fixture.catalog.storeFile(Self.file("f1", sha: "a", size: 1, ts: 1), event: nil, retainPerRoom: 100)
        let event = StoredEvent(room: "dev", seq: 1, ts: 1, kind: .file, sender: "alice", text: "x", file: "f1", size: 1,
                                sha256: Self.digest("a"))
        #expect(throws: HistoryStoreError.self) {
            try fixture.catalog.storeFile(Self.file("f1", sha: "a", size: 1, ts: 1), event: event, retainPerRoom: 100)
        }
        #expect(try fixture.history.events(inRoom: "dev", after: nil, before: nil, limit: 10).isEmpty)
    }

    /// A version 1 database gains the file tables and columns: its events read back without file
    /// fields, and files and `file` events can be stored in it and survive reopening.
    @Test func versionOneDatabaseGainsFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.db")
        try FileManager.default.copyItem(atPath: SQLiteAccountStoreTests.versionOneFixture, toPath: path)
        do {
            let store = try SQLiteHistoryStore(path: path)
            let lobby = try store.events(inRoom: "lobby", after: nil, before: nil, limit: 100)
            #expect(lobby.count == 6 && lobby.allSatisfy { $0.file == nil && $0.size == nil && $0.sha256 == nil })
            let event = StoredEvent(room: "lobby", seq: 7, ts: 9, kind: .file, sender: "alice", text: "f1.bin", id: "u-f1", file: "f1",
                                    size: 10, sha256: Self.digest("a"))
            try store.storeFile(Self.file("f1", sha: "a", size: 10, ts: 9, room: "lobby"), event: event, retainPerRoom: 100)
        }
        let reopened = try SQLiteHistoryStore(path: path)
        #expect(try reopened.file(id: "f1")?.room == "lobby")
        #expect(try reopened.lastSequence(inRoom: "lobby") == 7)
        #expect(try reopened.events(inRoom: "lobby", after: 6, before: nil, limit: 10).first?.file == "f1")
        #expect(SQLiteAccountStoreTests.userVersion(path) == SQLiteSchema.version)
    }
}
