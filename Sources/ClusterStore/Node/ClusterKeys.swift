import ChatProtocol

/// The names a node of several keeps in Redis besides a room's (``RoomKeys``), the directory's
/// (``NodeDirectory``) and the leases' (``Leases``): one place for every name, so the node's state
/// machine, its driver and the glue cannot disagree.
public enum ClusterKeys {
    /// The rooms node `node` has followed (its reaper looks there for its members).
    public static func rooms(of node: String) -> String { "{node:\(node)}:rooms" }

    /// The pseudo-room whose stream and channel are a node's inbox (room names have no `@`).
    public static func inboxRoom(of node: String) -> String { "@inbox:\(node)" }

    /// Where nodes publish users' status changes.
    public static let presenceChannel = "{presence}"

    /// A random token written once: a node that finds it missing or changed knows Redis lost
    /// the data it had seen (``ClusterNode``).
    public static let epoch = "{meta}:epoch"

    /// Server bans: `KEY` → a ban (``PolicyFormat``); a change is announced on ``serverChannel``.
    public static let serverBans = "{server}:bans"
    public static let serverChannel = "{server}:changes"

    /// Account changes (`NODE KEY`): every other node forgets what it had read of the account.
    public static let accountChangesChannel = "{accounts}:changes"

    public static func account(_ name: String) -> String { "{account:\(ChatValidation.nickKey(name))}" }
    public static func certificates(_ name: String) -> String { account(name) + ":certs" }

    /// `{dm:DIGEST}:ID` = the `ts` a peer's `dm` with that id was delivered with, for 600 s (as a
    /// room message's dedupe key): a resend through any node is acknowledged again, not delivered.
    public static func directReceipt(digest: String, id: String) -> String { "{dm:\(digest)}:\(id)" }

    /// The mark of the `--files` folder the nodes share, set by the first node that starts.
    public static let filesFolder = "{files}:folder"
}
