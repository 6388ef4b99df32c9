import ChatProtocol
@testable import ChatServerCore
import Foundation
@testable import SQLiteStorage
import Testing

/// Accounts, certificates, room settings and bans in the `--db` file: written, read back after a
/// reopen, and the schema migration from a database the version 1 server wrote.
@Suite struct SQLiteAccountStoreTests {
    /// The database file the version 1 server (before issue 13) wrote in a real run: `alice` and
    /// `bob` chatted in `lobby` and `dev`, bob renamed to `robert`, four message receipts.
    static let versionOneFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/history-v1.db").path

    /// Accounts and certificates round-trip, names compare case-insensitively, a taken name throws.
    @Test func accountsRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteAccountStore(path: directory.file("chat.db"))
        try store.create(StoredAccount(name: "Alice", passwordHash: "$argon2id$x", created: 5), certificate: "aa")
        #expect(try store.account(named: "alice") == StoredAccount(name: "Alice", passwordHash: "$argon2id$x", created: 5))
        #expect(throws: (any Error).self) { try store.create(StoredAccount(name: "ALICE", passwordHash: nil, created: 6), certificate: nil) }
        try store.bind(certificate: "bb", toAccount: "ALICE")
        try store.bind(certificate: "bb", toAccount: "alice")
        #expect(try store.certificates(ofAccount: "alice") == ["aa", "bb"])
        try store.unbind(certificate: "aa", fromAccount: "alice")
        try store.setPasswordHash(nil, ofAccount: "alice")
        #expect(try store.account(named: "alice")?.passwordHash == nil)
        #expect(try store.certificates(ofAccount: "alice") == ["bb"])
        #expect(try store.account(named: "nobody") == nil)
    }

    /// Every kind of room change and server ban survives closing and reopening the file.
    @Test func settingsSurviveReopening() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        let guestBan = Ban(label: "troll", peer: "PEER", address: "10.0.0.1", reason: "spam", by: "alice", ts: 7)
        let accountBan = Ban(label: "Mallory", account: "mallory", reason: "", by: "alice", ts: 8)
        do {
            let store = try SQLiteAccountStore(path: path)
            for change: PolicyChange in [
                .owner(room: "dev", account: "alice"), .topic(room: "dev", RoomTopic(text: "hello", setBy: "alice", ts: 3)),
                .mode(room: "dev", .invite, on: true), .mode(room: "dev", .registered, on: true), .mode(room: "dev", .registered, on: false),
                .operatorAdded(room: "dev", account: "Bob"), .operatorAdded(room: "dev", account: "carol"),
                .operatorRemoved(room: "dev", account: "CAROL"), .banAdded(room: "dev", guestBan), .banAdded(room: "dev", accountBan),
                .banRemoved(room: "dev", label: "MALLORY"), .inviteAdded(room: "dev", .account("dave")), .inviteAdded(room: "dev", .peer("P2")),
                .banAdded(room: nil, accountBan),
            ] {
                try store.save(change)
            }
        }
        let store = try SQLiteAccountStore(path: path)
        let settings = try store.roomSettings(of: "dev")
        #expect(settings.owner == "alice")
        #expect(settings.topic == RoomTopic(text: "hello", setBy: "alice", ts: 3))
        #expect(settings.modes == [.invite])
        #expect(settings.operators == ["bob": "Bob"])
        #expect(settings.bans.byKey == ["troll": guestBan])
        #expect(settings.invites == [.account("dave"), .peer("P2")])
        #expect(try store.serverBans() == [accountBan])
        #expect(try store.roomSettings(of: "other") == RoomSettings())
        try store.save(.topic(room: "dev", nil))
        #expect(try store.roomSettings(of: "dev").topic == nil)
    }

    /// A version 1 database opens: every event and receipt is kept, seq continues, and the new tables work; the file is version 3.
    @Test func versionOneDatabaseMigratesWithoutLoss() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.db")
        try FileManager.default.copyItem(atPath: Self.versionOneFixture, toPath: path)
        let history = try SQLiteHistoryStore(path: path)
        let accounts = try SQLiteAccountStore(path: path)
        let lobby = try history.events(inRoom: "lobby", after: nil, before: nil, limit: 100)
        let dev = try history.events(inRoom: "dev", after: nil, before: nil, limit: 100)
        #expect(lobby.map(\.seq) == [1, 2, 3, 4, 5, 6])
        #expect(dev.map(\.seq) == [1, 2, 3, 4, 5, 6, 7])
        #expect(lobby.first { $0.kind == .msg }?.text == "hello from version one")
        #expect(dev.contains { $0.kind == .nick && $0.sender == "bob" && $0.text == "robert" })
        #expect(lobby.allSatisfy { $0.account == nil && $0.target == nil })
        #expect(try history.lastSequence(inRoom: "dev") == 7)
        // The receipt of alice's lobby message is still there (peer ids are the bots' own).
        let receiptPeer = try #require(Self.receiptPeers(path).first)
        #expect(try history.receipt(peer: receiptPeer.peer, id: receiptPeer.id) != nil)
        // New events carry the new columns; accounts work in the migrated file.
        try history.append(events: [StoredEvent(room: "dev", seq: 8, ts: 9, kind: .kicked, sender: "op", text: "bye", account: "op",
                                                target: "robert")], receipts: [], retainPerRoom: 1000)
        #expect(try history.events(inRoom: "dev", after: 7, before: nil, limit: 1).first?.target == "robert")
        try accounts.create(StoredAccount(name: "alice", passwordHash: "h", created: 1), certificate: nil)
        #expect(try accounts.account(named: "alice") != nil)
        #expect(Self.userVersion(path) == SQLiteSchema.version)
    }

    /// Opening the migrated file again changes nothing; a file from a newer schema is refused, untouched.
    @Test func migrationIsIdempotentAndRefusesTheFuture() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("old.db")
        try FileManager.default.copyItem(atPath: Self.versionOneFixture, toPath: path)
        _ = try SQLiteHistoryStore(path: path)
        _ = try SQLiteHistoryStore(path: path)
        _ = try SQLiteAccountStore(path: path)
        #expect(try SQLiteHistoryStore(path: path).events(inRoom: "lobby", after: nil, before: nil, limit: 100).count == 6)
        let future = directory.file("future.db")
        _ = try SQLiteHistoryStore(path: future)
        Self.sqlite(future, "PRAGMA user_version = \(SQLiteSchema.version + 1)")
        #expect(throws: HistoryStoreError.self) { try SQLiteAccountStore(path: future) }
        #expect(Self.userVersion(future) == SQLiteSchema.version + 1)
    }

    /// The core on SQLite stores: an account, its certificate, a room's owner, topic, modes, operator, ban and invite, and a
    /// server ban all hold for a new server on the same file.
    @Test func coreStateSurvivesARestart() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("chat.db")
        var configuration = ChatServerConfiguration()
        configuration.operators = ["admin"]
        do {
            let harness = try Harness(configuration: configuration, history: try SQLiteHistoryStore(path: path),
                                      accounts: try SQLiteAccountStore(path: path))
            harness.registered(1, nick: "alice", certificate: Harness.fingerprint(1))
            harness.registered(2, nick: "admin")
            harness.registered(3, nick: "bob")
            harness.registered(4, nick: "mallory")
            harness.hello(5, nick: "guest")
            harness.send(.join(room: "dev"), from: 1)
            harness.send(.claim(room: "dev"), from: 1)
            harness.send(.topic(room: "dev", text: "kept"), from: 1)
            harness.send(.op(room: "dev", account: "bob"), from: 1)
            harness.send(.ban(room: "dev", target: "mallory"), from: 1)
            harness.send(.invite(room: "dev", nick: "bob"), from: 1)
            harness.send(.mode(room: "dev", "+invite"), from: 1)
            harness.send(.ban(room: nil, target: "guest"), from: 2)
        }
        let harness = try Harness(configuration: configuration, history: try SQLiteHistoryStore(path: path),
                                  accounts: try SQLiteAccountStore(path: path))
        #expect(harness.hello(10, nick: "alice", certificate: Harness.fingerprint(1)).chat(to: 10).first?.account == "alice")
        #expect(harness.send(.join(room: "dev"), from: 10).errorCodes(to: 10).isEmpty)
        let bob = harness.hello(11, nick: "bob", password: "password1")
        #expect(bob.chat(to: 11).first?.account == "bob")
        let joined = harness.send(.join(room: "dev"), from: 11)
        #expect(joined.errorCodes(to: 11).isEmpty)
        let roster = try #require(harness.send(.status("online"), from: 11, on: .presence).presence(to: 11).first { $0.type == "roster" && $0.room == "dev" }
            ?? joined.presence(to: 11).first { $0.type == "roster" })
        #expect(roster.topic == "kept")
        #expect(roster.modes == ["invite"])
        #expect(harness.send(.kick(room: "dev", nick: "alice"), from: 11).errorCodes(to: 11) == ["not-operator"])
        harness.hello(12, nick: "mallory", password: "password1")
        harness.send(.invite(room: "dev", nick: "mallory"), from: 10)
        #expect(harness.send(.join(room: "dev"), from: 12).errorCodes(to: 12) == ["banned"])
        harness.hello(13, nick: "carol")
        #expect(harness.send(.join(room: "dev"), from: 13).errorCodes(to: 13) == ["not-invited"])
        let banned = harness.hello(14, nick: "guest", address: "10.0.0.5", peer: Harness.peer(5))
        #expect(banned.closes.map(\.code) == [.banned])
        #expect(harness.send(.claim(room: "dev"), from: 11).errorCodes(to: 11) == ["room-owned"])
    }

    static func userVersion(_ path: String) -> Int? {
        Int(sqlite(path, "PRAGMA user_version").trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// (peer, id) of the fixture's receipts, read with the sqlite3 tool.
    static func receiptPeers(_ path: String) -> [(peer: String, id: String)] {
        sqlite(path, "SELECT peer, msg_id FROM receipts").split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|")
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
    }

    @discardableResult
    static func sqlite(_ path: String, _ sql: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        let pipe = Pipe()
        process.standardOutput = pipe
        try? process.run()
        process.waitUntilExit()
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
