import ChatProtocol

/// Who held a peer id in the cluster before a connection took it over (``ChatServerState/helloClaimed(_:_:now:)``).
public struct PeerHolder: Sendable, Equatable {
    public let node: String
    public let client: ClientID
    public let nick: String
    /// ``ChatValidation/nickKey(_:)`` of the account its session is logged in to (nil: a guest's).
    /// The store gives the lease over only to a connection that proved that account; otherwise
    /// the holder keeps it (and the new connection is a new device).
    public let account: String?
    /// The holder is (was) a connection of this node.
    public let isThisNode: Bool

    public init(node: String, client: ClientID, nick: String, account: String? = nil, isThisNode: Bool) {
        self.node = node
        self.client = client
        self.nick = nick
        self.account = account
        self.isThisNode = isThisNode
    }
}

/// What a hello's claim did (``ChatServerState/helloClaimed(_:_:now:)``): whether it took the
/// device's lease (not when the session holding it is logged in to an account the connection did
/// not prove), who held it before, and the nick it took (nil: every candidate was held).
public struct HelloClaim: Sendable, Equatable {
    public let deviceTaken: Bool
    public let previous: PeerHolder?
    public let nick: String?

    public init(deviceTaken: Bool, previous: PeerHolder?, nick: String?) {
        self.deviceTaken = deviceTaken
        self.previous = previous
        self.nick = nick
    }
}

/// The device holding a nick and what its lease says of it (``ChatServerState/deviceLookedUp(_:_:now:)``):
/// what a node of several knows of a user connected through another node.
public struct DeviceHolder: Sendable, Equatable {
    public let node: String
    public let isThisNode: Bool
    /// The digest of its peer id (``ChatServerState/peerDigest``).
    public let device: String
    /// The account it is logged in to, if any, and its address as limits count it (empty for an
    /// address many clients share), when its lease names them.
    public let account: String?
    public let address: String?

    public init(node: String, isThisNode: Bool, device: String, account: String?, address: String?) {
        self.node = node
        self.isThisNode = isThisNode
        self.device = device
        self.account = account
        self.address = address
    }
}

/// What became of a claim of a peer id, a nick or a lookup in the shared store.
public enum ClaimOutcome<Value: Sendable & Equatable>: Sendable, Equatable {
    case answered(Value)
    /// The store could not be reached or refused: nothing is known to have changed.
    case failed(String)
}

/// A message for one node (its inbox in the shared store).
public enum NodeMessage: Sendable, Equatable {
    /// A `dm` for a user of that node: `to` its nick, `payload` the `dm` as the recipient gets it
    /// (a JSON object, no LF). `dedupe` (`PEER:ID`, the sender's peer id and the dm's id) makes a
    /// resend into the same inbox store nothing (an append whose answer was lost may have been
    /// stored: the client resends it with its id, docs/PROTOCOL.md section 10).
    case dm(to: String, payload: [UInt8], dedupe: String? = nil)
    /// The same device (`peer`) connected through another node: close connection `client` with
    /// REPLACED. The receiving glue hands this over only when that connection is that device's.
    case replace(client: ClientID, peer: String)
    /// A server operator kicked `nick` from the server (`kick` without room, or the console):
    /// its node closes it with KICKED after a `kicked` naming `by`.
    case kick(nick: String, reason: String, by: String)
    /// An `invite` for a guest of that node, `payload` as it gets it; delivered only while `nick`
    /// is still that device's (`device`: the digest of its peer id).
    case invite(nick: String, device: String, payload: [UInt8])
    /// A private file's `file` notice for a user of that node, `payload` as it gets it; delivered
    /// only while `nick` is still that device's (`device`: the digest of its peer id).
    case fileNotice(nick: String, device: String, payload: [UInt8])
}

/// A connection's hello or rename waiting for the shared store (peer and nick leases).
enum PendingIdentity {
    /// Claiming the peer id of a hello and its first round of nicks.
    case hello(ClientID, join: ChatMessage, peer: String, account: String?)
    /// A later round of a hello's nicks (the device's lease is its own already).
    case helloNick(ClientID, join: ChatMessage, peer: String, account: String?, round: Int)
    /// A `nick` request's new nick, or (`login`) the first free of the account's nick and its
    /// suffixed forms: a login whose candidates are all taken keeps its nick.
    case rename(ClientID, peer: String, request: ChatMessage, candidates: [String], login: Bool)
    /// A `dm` with an id: whether the peer sent it before, through any node.
    case directMessageReceipt(ClientID, request: ChatMessage)
    /// A `dm` to a nick not on this node: where it is.
    case directMessage(ClientID, request: ChatMessage, text: String)
    /// A server kick of a nick no connection here holds: where it is (`requester`: the operator's
    /// connection, told once it is sent; nil for the console).
    case serverKick(nick: String, reason: String, by: String, requester: ClientID?)
    /// An `invite` of a nick no connection here holds and no room here knows: where it is.
    case invite(ClientID, request: ChatMessage)
    /// A `ban` (of a room, or of the server) of a nick no connection here holds and no account
    /// has: the device holding it through another node (the asker's connection; nil for the
    /// operator console).
    case ban(ClientID?, request: ChatMessage)
    /// A `dm` handed to the recipient's node (stamped `ts`: its `ack` says the same).
    case directMessageSent(ClientID, id: String?, ts: Int64)
    /// A private upload's header to a nick no connection here holds: where it is.
    case uploadRecipient(FileStreamKey, request: ChatMessage)
    /// A stored private file's notice for a recipient no longer (or never) here: where it is now.
    case fileNotice(nick: String, device: String, payload: [UInt8])
}
