/// Where accounts, their certificates, room settings and server bans live: in memory
/// (``InMemoryAccountStore``) or in the `--db` SQLite file (``SQLiteAccountStore``), which survives
/// restarts and `kill -9`.
///
/// The server calls a store from its one event-loop thread; every write is durable when it
/// returns, because the server answers right after it. Account names compare case-insensitively:
/// stores key them by ``ChatProtocol/ChatValidation/nickKey(_:)``. The core keeps what ordinary
/// messages need (room settings, server bans) in memory, so the store is asked only at hello,
/// login, registration, the first join of a room and moderation requests.
public protocol AccountStore: AnyObject {
    /// The account named `name` (any case), if there is one.
    func account(named name: String) throws -> StoredAccount?
    /// Creates an account, with a certificate bound to it when one is given. Throws when the name
    /// is taken.
    func create(_ account: StoredAccount, certificate: String?) throws
    func setPasswordHash(_ hash: String?, ofAccount name: String) throws
    /// The SHA-256 fingerprints bound to an account.
    func certificates(ofAccount name: String) throws -> [String]
    func bind(certificate: String, toAccount name: String) throws
    func unbind(certificate: String, fromAccount name: String) throws

    /// Everything kept about a room (empty settings for a room never configured).
    func roomSettings(of room: String) throws -> RoomSettings
    /// Every server ban.
    func serverBans() throws -> [Ban]
    /// Stores one change to a room or to the server bans.
    func save(_ change: PolicyChange) throws
}
