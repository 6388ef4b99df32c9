/// Where a nick is held (``ChatServerState/nickLookedUp(_:_:now:)``).
public struct NickHolder: Sendable, Equatable {
    public let node: String
    public let isThisNode: Bool
    /// The digest of the holding device's peer id (``ChatServerState/peerDigest``).
    public let device: String?

    public init(node: String, isThisNode: Bool, device: String? = nil) {
        self.node = node
        self.isThisNode = isThisNode
        self.device = device
    }
}
