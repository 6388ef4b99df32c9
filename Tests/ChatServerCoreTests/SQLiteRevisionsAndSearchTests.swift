import ChatProtocol
@testable import ChatServerCore
import Foundation
import LocalStore
@testable import SQLiteStorage
import Testing

/// Version 1.2 in the `--db` file (schema version 6): edits and redactions applied to the stored
/// message, redacted text erased from the file (not hidden), the search index, read markers and
/// the rooms an account keeps; and the same revisions in the in-memory history.
@Suite struct SQLiteRevisionsAndSearchTests {
    static func message(_ seq: Int64, _ text: String, room: String = "dev", kind: StoredEventKind = .msg) -> StoredEvent {
        StoredEvent(room: room, seq: seq, ts: 1000 + seq, kind: kind, sender: "alice", text: text, account: "alice")
    }

    static func revision(_ kind: StoredEventKind, _ seq: Int64, of ref: Int64, _ text: String = "", room: String = "dev") -> StoredEvent {
        StoredEvent(room: room, seq: seq, ts: 1000 + seq, kind: kind, sender: "alice", text: text, account: "alice", ref: ref)
    }

    /// Every byte of the database's files: the file, its write-ahead log and shared memory.
    static func bytesOnDisk(_ path: String) -> Data {
        ["", "-wal", "-shm"].reduce(into: Data()) { bytes, suffix in
            bytes += FileManager.default.contents(atPath: path + suffix) ?? Data()
        }
    }

    static func contains(_ data: Data, _ text: String) -> Bool {
        data.range(of: Data(text.utf8)) != nil
    }

    /// An edit replaces the text read back (with `edited`, its ts) and what search finds; a
    /// redaction leaves the message with no text, `redacted`, its edits with no text, and nothing
    /// to find.
    @Test func editsAndRedactionsRewriteTheStoredMessage() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteHistoryStore(path: directory.file("chat.db"))
        try store.append(events: [Self.message(1, "first draft of the plan"), Self.message(2, "unrelated")], receipts: [],
                         retainPerRoom: 100)
        try store.append(events: [Self.revision(.edit, 3, of: 1, "final plan")], receipts: [], retainPerRoom: 100)
        var events = try store.events(inRoom: "dev", after: nil, before: nil, limit: 10)
        #expect(events.map(\.seq) == [1, 2, 3])
        #expect(events[0].text == "final plan" && events[0].edited == 1003 && !events[0].redacted)
        #expect(events[2].kind == .edit && events[2].ref == 1 && events[2].text == "final plan")
        #expect(events[0].message(replay: true).edited == 1003)
        #expect(try store.messages(inRoom: "dev", matching: ["final"], limit: 50).map(\.seq) == [1])
        #expect(try store.messages(inRoom: "dev", matching: ["draft"], limit: 50).isEmpty)

        try store.append(events: [Self.revision(.redact, 4, of: 1, "oops")], receipts: [], retainPerRoom: 100)
        events = try store.events(inRoom: "dev", after: nil, before: nil, limit: 10)
        #expect(events[0].text == "" && events[0].redacted && events[0].edited == nil)
        #expect(events[0].message(replay: true).redacted == true)
        #expect(events[2].text == "")
        #expect(events[3].kind == .redact && events[3].text == "oops")
        #expect(try store.messages(inRoom: "dev", matching: ["plan"], limit: 50).isEmpty)
        // A redacted message is edited no more; reactions change no stored message.
        try store.append(events: [Self.revision(.edit, 5, of: 1, "back again"), Self.revision(.react, 6, of: 2, "+1")], receipts: [],
                         retainPerRoom: 100)
        events = try store.events(inRoom: "dev", after: nil, before: nil, limit: 10)
        #expect(events[0].text == "" && events[0].redacted)
        #expect(events[1].text == "unrelated" && events[1].edited == nil)
        #expect(events[5].kind == .react && events[5].ref == 2 && events[5].text == "+1")
    }

    /// The words of a redacted message and of its edits are gone from every file of the database
    /// once the remnants are erased: the rows rewritten with zeros where the text was (secure
    /// delete), the index's segments merged, the write-ahead log emptied. The first redaction's
    /// commit erases at once; another within the interval waits, and meanwhile the files still
    /// hold its words (so this test can see them), until an erasure is due.
    @Test func redactedTextIsErasedFromTheFiles() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        let store = try SQLiteHistoryStore(path: path, erasureInterval: 3600)
        let filler = (3...40).map { Self.message($0, "ordinary chatter number \($0)") }
        try store.append(events: [Self.message(1, "launch code xylophonic"), Self.message(2, "keep this quokkaesque")] + filler,
                         receipts: [], retainPerRoom: 1000)
        try store.append(events: [Self.revision(.edit, 41, of: 1, "launch code zeugmatic")], receipts: [], retainPerRoom: 1000)
        try store.eraseRedactedRemnants()
        #expect(Self.contains(Self.bytesOnDisk(path), "xylophonic") == false, "an edit's old text is not kept either")
        #expect(Self.contains(Self.bytesOnDisk(path), "zeugmatic"))
        try store.append(events: [Self.revision(.redact, 42, of: 1)], receipts: [], retainPerRoom: 1000)
        #expect(!store.hasRedactedRemnants)
        var bytes = Self.bytesOnDisk(path)
        #expect(!Self.contains(bytes, "zeugmatic"))
        #expect(Self.contains(bytes, "quokkaesque"))
        // Within the interval the next redaction's remnants wait, and are there to be seen.
        try store.append(events: [Self.revision(.redact, 43, of: 2)], receipts: [], retainPerRoom: 1000)
        #expect(store.hasRedactedRemnants)
        #expect(Self.contains(Self.bytesOnDisk(path), "quokkaesque"), "the index's segments and the log keep it until the erasure")
        #expect(try store.messages(inRoom: "dev", matching: ["quokkaesque"], limit: 50).isEmpty, "though no search finds it")
        #expect(try store.eraseRedactedRemnantsIfDue(now: 10) == false)
        #expect(try store.eraseRedactedRemnantsIfDue(now: 4000))
        bytes = Self.bytesOnDisk(path)
        #expect(!Self.contains(bytes, "quokkaesque"))
        #expect(Self.contains(bytes, "chatter"))
    }

    /// With the default interval the commit that stores a redaction erases its remnants itself.
    @Test func theCommitOfARedactionErasesWhenDue() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        let store = try SQLiteHistoryStore(path: path)
        try store.commit(RoomLogBatch(events: [Self.message(1, "hush hush pseudonymous"), Self.message(2, "stays")]), retainPerRoom: 100)
        try store.commit(RoomLogBatch(events: [Self.revision(.redact, 3, of: 1)]), retainPerRoom: 100)
        #expect(!store.hasRedactedRemnants)
        #expect(!Self.contains(Self.bytesOnDisk(path), "pseudonymous"))
    }

    /// Search (PROTOCOL.md sections 15 and 17): whole words, every word, case-folded as
    /// ChatValidation folds them, newest first, at most `limit`, in the room asked only; a file
    /// by its name; pruned messages leave the index with their rows.
    @Test func searchFindsWholeWordsNewestFirst() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteHistoryStore(path: directory.file("chat.db"))
        try store.append(events: [
            Self.message(1, "Meet at the Straße tonight"),
            Self.message(2, "the planet is round"),
            Self.message(3, "PLAN: meet tonight"),
            Self.message(4, "plan b, later"),
            Self.message(5, "report.pdf", kind: .file),
            Self.message(1, "meet tonight elsewhere", room: "other"),
            StoredEvent(room: "dev", seq: 6, ts: 1006, kind: .topic, sender: "op", text: "plan tonight"),
        ], receipts: [], retainPerRoom: 100)
        func search(_ text: String, limit: Int = 50) throws -> [Int64] {
            try store.messages(inRoom: "dev", matching: ChatValidation.searchQuery(text), limit: limit).map(\.seq)
        }
        #expect(try search("plan") == [4, 3])
        #expect(try search("meet TONIGHT") == [3, 1])
        #expect(try search("STRASSE") == [1])
        #expect(try search("plan later") == [4])
        #expect(try search("plan", limit: 1) == [4])
        #expect(try search("report pdf") == [5])
        #expect(try search("nothing") == [])
        // Seven events stored; keeping the newest two prunes 1 to 4 and their index rows.
        try store.append(events: [Self.message(7, "plan c")], receipts: [], retainPerRoom: 2)
        #expect(try search("plan") == [7])
        #expect(try search("meet") == [])
    }

    /// A file written before version 1.2 (the version 1 server's) is migrated to schema version 6
    /// and its messages can be found.
    @Test func anOlderFileIsIndexedOnMigration() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.db")
        try FileManager.default.copyItem(atPath: SQLiteAccountStoreTests.versionOneFixture, toPath: path)
        let store = try SQLiteHistoryStore(path: path)
        #expect(SQLiteAccountStoreTests.userVersion(path) == 6)
        let found = try store.messages(inRoom: "lobby", matching: ["version", "one"], limit: 50)
        #expect(found.map(\.text) == ["hello from version one"])
        #expect(try SQLiteHistoryStore(path: path).messages(inRoom: "lobby", matching: ["hello"], limit: 50).count == 1)
    }

    /// Read markers move forward only; kept rooms are a set per account; both survive a reopen.
    @Test func readMarkersAndKeptRooms() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        do {
            let store = try SQLiteHistoryStore(path: path)
            let conversation = SQLiteHistoryStore.conversationTarget(with: "bob")
            #expect(try store.raiseReadMarker(ofAccount: "alice", in: "dev", to: 10))
            #expect(try store.raiseReadMarker(ofAccount: "alice", in: "dev", to: 10) == false)
            #expect(try store.raiseReadMarker(ofAccount: "alice", in: "dev", to: 4) == false)
            #expect(try store.raiseReadMarker(ofAccount: "alice", in: conversation, to: 3))
            #expect(try store.raiseReadMarker(ofAccount: "carol", in: "dev", to: 1))
            try store.keepRoom("dev", forAccount: "alice")
            try store.keepRoom("lobby", forAccount: "alice")
            try store.keepRoom("dev", forAccount: "alice")
            try store.keepRoom("ops", forAccount: "carol")
            try store.dropRoom("lobby", forAccount: "alice")
        }
        let store = try SQLiteHistoryStore(path: path)
        #expect(try store.readMarkers(ofAccount: "alice") == ["dev": 10, "@bob": 3])
        #expect(try store.keptRooms(ofAccount: "alice") == ["dev"])
        #expect(try store.keptRooms(ofAccount: "carol") == ["ops"])
        #expect(try store.readMarkers(ofAccount: "nobody").isEmpty)
    }

    /// The in-memory history applies the same revisions (``MessageRevision``).
    @Test func theInMemoryHistoryRevisesAlike() {
        let store = InMemoryHistoryStore()
        store.append(events: [Self.message(1, "draft"), Self.revision(.edit, 2, of: 1, "final")], receipts: [], retainPerRoom: 100)
        #expect(store.events(inRoom: "dev", after: nil, before: nil, limit: 10).first?.text == "final")
        #expect(store.events(inRoom: "dev", after: nil, before: nil, limit: 10).first?.edited == 1002)
        store.append(events: [Self.revision(.redact, 3, of: 1)], receipts: [], retainPerRoom: 100)
        let events = store.events(inRoom: "dev", after: nil, before: nil, limit: 10)
        #expect(events[0].text == "" && events[0].redacted && events[1].text == "")
        #expect(MessageRevision.revised(Self.message(1, "x"), by: Self.revision(.react, 2, of: 1, "+1")) == nil)
        #expect(MessageRevision.revised(StoredEvent(room: "dev", seq: 1, ts: 1, kind: .joined, sender: "a", text: ""),
                                        by: Self.revision(.edit, 2, of: 1, "y")) == nil)
    }
}
