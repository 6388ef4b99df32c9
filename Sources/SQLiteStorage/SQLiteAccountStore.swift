import ChatProtocol
import ChatServerCore

/// Accounts, certificates, room settings and bans in the `--db` SQLite file (WAL mode, the same
/// file as the history; its own connection). Every write is one transaction, committed before it
/// returns, so whatever the server answered survives `kill -9`. Failures are thrown as
/// ``HistoryStoreError`` naming the file.
public final class SQLiteAccountStore: AccountStore {
    public let path: String
    private let database: SQLiteDatabase
    private let statements: SQLiteAccountStatements

    /// The scope of server bans in the `bans` table (a room name is never empty).
    private static let serverScope = ""

    public init(path: String, synchronous: SQLiteSynchronousMode = .normal) throws {
        self.path = path
        database = try SQLiteDatabase(path: path)
        try database.useWriteAheadLog(synchronous: synchronous)
        try SQLiteSchema.migrate(database)
        statements = try SQLiteAccountStatements(database)
    }

    // MARK: Accounts

    public func account(named name: String) throws -> StoredAccount? {
        let statement = statements.selectAccount
        statement.bind([.text(ChatValidation.nickKey(name))])
        defer { statement.reset() }
        guard try statement.step(doing: "reading an account") else { return nil }
        return StoredAccount(name: statement.text(at: 0) ?? name, passwordHash: statement.optionalText(at: 1),
                             created: statement.integer(at: 2))
    }

    public func create(_ account: StoredAccount, certificate: String?) throws {
        let key = ChatValidation.nickKey(account.name)
        try transaction { () throws(HistoryStoreError) in
            try statements.insertAccount.run(
                [.text(key), .text(account.name), .optionalText(account.passwordHash), .integer(account.created)],
                doing: "creating account '\(account.name)'")
            if let certificate {
                try statements.insertCertificate.run([.text(key), .text(certificate)], doing: "binding a certificate")
            }
        }
    }

    public func setPasswordHash(_ hash: String?, ofAccount name: String) throws {
        try statements.updatePassword.run([.text(ChatValidation.nickKey(name)), .optionalText(hash)], doing: "changing a password")
    }

    public func certificates(ofAccount name: String) throws -> [String] {
        let statement = statements.selectCertificates
        statement.bind([.text(ChatValidation.nickKey(name))])
        defer { statement.reset() }
        var fingerprints: [String] = []
        while try statement.step(doing: "reading certificates") {
            if let fingerprint = statement.text(at: 0) { fingerprints.append(fingerprint) }
        }
        return fingerprints
    }

    public func bind(certificate: String, toAccount name: String) throws {
        try statements.insertCertificate.run([.text(ChatValidation.nickKey(name)), .text(certificate)], doing: "binding a certificate")
    }

    public func unbind(certificate: String, fromAccount name: String) throws {
        try statements.deleteCertificate.run([.text(ChatValidation.nickKey(name)), .text(certificate)], doing: "unbinding a certificate")
    }

    // MARK: Rooms and bans

    public func roomSettings(of room: String) throws -> RoomSettings {
        var settings = RoomSettings()
        let row = statements.selectRoomSettings
        row.bind([.text(room)])
        if try row.step(doing: "reading the settings of room '\(room)'") {
            settings.owner = row.optionalText(at: 0)
            if let text = row.optionalText(at: 1) {
                settings.topic = RoomTopic(text: text, setBy: row.optionalText(at: 2) ?? "", ts: row.integer(at: 3))
            }
            if row.integer(at: 4) != 0 { settings.modes.insert(.invite) }
            if row.integer(at: 5) != 0 { settings.modes.insert(.registered) }
        }
        row.reset()
        let operators = statements.selectOperators
        operators.bind([.text(room)])
        while try operators.step(doing: "reading the operators of room '\(room)'") {
            if let key = operators.text(at: 0) { settings.operators[key] = operators.text(at: 1) ?? key }
        }
        operators.reset()
        settings.bans = BanList(try bans(scope: room))
        let invites = statements.selectInvites
        invites.bind([.text(room)])
        while try invites.step(doing: "reading the invites of room '\(room)'") {
            guard let value = invites.text(at: 1) else { continue }
            settings.invites.insert(invites.text(at: 0) == "peer" ? .peer(value) : .account(value))
        }
        invites.reset()
        return settings
    }

    public func serverBans() throws -> [Ban] {
        try bans(scope: Self.serverScope)
    }

    public func save(_ change: PolicyChange) throws {
        try transaction { () throws(HistoryStoreError) in
            switch change {
            case .banAdded, .banRemoved:
                break  // bans have their own table, for rooms and the server alike
            default:
                if let room = change.room {
                    try statements.ensureRoomSettings.run([.text(room)], doing: "creating the settings of room '\(room)'")
                }
            }
            try write(change)
        }
    }

    private func write(_ change: PolicyChange) throws(HistoryStoreError) {
        switch change {
        case .owner(let room, let account):
            try statements.updateOwner.run([.text(room), .text(account)], doing: "setting the owner of room '\(room)'")
        case .topic(let room, let topic):
            try statements.updateTopic.run(
                [.text(room), .optionalText(topic?.text), .optionalText(topic?.setBy), .optionalInteger(topic?.ts)],
                doing: "setting the topic of room '\(room)'")
        case .mode(let room, let mode, let isOn):
            let statement = mode == .invite ? statements.updateInviteOnly : statements.updateRegisteredOnly
            try statement.run([SQLiteValue.text(room), SQLiteValue.integer(isOn ? 1 : 0)], doing: "setting a mode of room '\(room)'")
        case .operatorAdded(let room, let account):
            try statements.insertOperator.run([.text(room), .text(ChatValidation.nickKey(account)), .text(account)],
                                              doing: "adding an operator to room '\(room)'")
        case .operatorRemoved(let room, let account):
            try statements.deleteOperator.run([.text(room), .text(ChatValidation.nickKey(account))],
                                              doing: "removing an operator from room '\(room)'")
        case .banAdded(let room, let ban):
            try statements.insertBan.run(
                [.text(room ?? Self.serverScope), .text(ban.key), .text(ban.label), .optionalText(ban.account), .optionalText(ban.peer),
                 .optionalText(ban.address), .text(ban.reason), .text(ban.by), .integer(ban.ts)],
                doing: "storing a ban")
        case .banRemoved(let room, let label):
            try statements.deleteBan.run([.text(room ?? Self.serverScope), .text(ChatValidation.nickKey(label))], doing: "lifting a ban")
        case .inviteAdded(let room, let invitee):
            let (kind, value) = switch invitee {
            case .account(let key): ("account", key)
            case .peer(let peer): ("peer", peer)
            // Only a node of several invites by digest, and it keeps settings in Redis.
            case .device(let digest): ("device", digest)
            }
            try statements.insertInvite.run([.text(room), .text(kind), .text(value)], doing: "storing an invite to room '\(room)'")
        }
    }

    private func bans(scope: String) throws(HistoryStoreError) -> [Ban] {
        let statement = statements.selectBans
        statement.bind([.text(scope)])
        defer { statement.reset() }
        var bans: [Ban] = []
        while try statement.step(doing: "reading bans") {
            bans.append(Ban(label: statement.text(at: 0) ?? "", account: statement.optionalText(at: 1), peer: statement.optionalText(at: 2),
                            address: statement.optionalText(at: 3), reason: statement.text(at: 4) ?? "", by: statement.text(at: 5) ?? "",
                            ts: statement.integer(at: 6)))
        }
        return bans
    }

    private func transaction(_ body: () throws(HistoryStoreError) -> Void) throws(HistoryStoreError) {
        try statements.begin.run([], doing: "beginning a transaction")
        do {
            try body()
            try statements.commit.run([], doing: "committing")
        } catch {
            try? statements.rollback.run([], doing: "rolling back")
            throw error
        }
    }
}
