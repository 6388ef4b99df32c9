import ChatServerCore

/// The identity leases as node `node` writes and reads them (``Leases``):
///
/// - `{peer:DIGEST}` = `NODE/CLIENT/NICK/ACCOUNT/ADDRESS`: where a device is connected, as what
///   (ACCOUNT `-` for a guest) and from where (ADDRESS as limits count it, empty when exempt): what
///   another node needs to ban it (issue 23, item 9). Written `NODE/CLIENT/` when the hello takes
///   it, completed once the hello has its nick, and again at each rename, registration and login.
/// - `{nick:KEY}` = `NODE/DIGEST`: who holds a nick (a device, through a node).
///
/// DIGEST is ``PeerDigest``'s: a peer id takes a session over (REPLACED), so it is never stored.
public struct LeaseFormat: Sendable {
    public let node: String

    public init(node: String) { self.node = node }

    /// A nick lease's holder: the device, through this node.
    public func nickHolder(device: String) -> String { "\(node)/\(device)" }

    /// A device lease's holder while a hello has no nick yet (and the prefix of its completed forms).
    public func connectionHolder(_ client: ClientID) -> String { "\(node)/\(client)/" }

    /// A device lease, completed.
    public func deviceLease(client: ClientID, nick: String, account: String?, address: String) -> String {
        "\(node)/\(client)/\(nick)/\(account ?? "-")/\(address)"
    }

    /// A device lease's fields: NODE, CLIENT, NICK, and (since issue 23) ACCOUNT-KEY (`-` for a
    /// guest) and ADDRESS.
    public static func deviceLeaseFields(_ value: String) -> [String] {
        value.split(separator: "/", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
    }

    /// A device's lease as a ``PeerHolder`` (nil when it names no connection).
    public func peerHolder(_ lease: String) -> PeerHolder? {
        let parts = Self.deviceLeaseFields(lease)
        guard parts.count >= 3, let client = ClientID(parts[1]) else { return nil }
        let account = parts.count >= 4 && !parts[3].isEmpty && parts[3] != "-" ? parts[3] : nil
        return PeerHolder(node: parts[0], client: client, nick: parts[2], account: account, isThisNode: parts[0] == node)
    }

    /// A nick's lease (`NODE/DIGEST`; nil when free) as a ``NickHolder``.
    public func nickHolder(lease: String?) -> NickHolder? {
        guard let parts = lease.map({ $0.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init) }) else {
            return nil
        }
        return NickHolder(node: parts[0], isThisNode: parts[0] == node, device: parts.count == 2 ? parts[1] : nil)
    }

    /// The node and device a nick's lease names; nil when free (or not `NODE/DIGEST`).
    public static func nodeAndDevice(nickLease: String?) -> (node: String, device: String)? {
        let parts = nickLease?.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init) ?? []
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// The device holding a nick (``nodeAndDevice(nickLease:)``) with what its device lease says.
    /// A lease written before issue 23 (or not completed yet) names no account or address.
    public func deviceHolder(node holder: String, device: String, deviceLease: String?) -> DeviceHolder {
        let fields = deviceLease.map(Self.deviceLeaseFields) ?? []
        let account = fields.count == 5 && fields[3] != "-" ? fields[3] : nil
        let address = fields.count == 5 ? fields[4] : nil
        return DeviceHolder(node: holder, isThisNode: holder == node, device: device, account: account, address: address)
    }
}
