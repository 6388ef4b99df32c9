/// A private file's recipient as its upload's header found it: a connection of this node (nick,
/// account and peer id), or with a shared store a user of another node (nick and device).
struct FileRecipient {
    let nick: String
    let account: String?
    let peer: String?
    /// The digest of the peer id (``ChatServerState/peerDigest``) of a recipient connected
    /// through another node: its leases name it by that alone.
    let device: String?

    init(_ session: ClientSession) {
        nick = session.nick
        account = session.account
        peer = session.peer
        device = nil
    }

    init(nick: String, device: String) {
        self.nick = nick
        account = nil
        peer = nil
        self.device = device
    }
}
