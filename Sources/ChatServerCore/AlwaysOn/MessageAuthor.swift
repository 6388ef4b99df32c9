import ChatProtocol

/// Who wrote a message, as version 1.2's rules compare authors (PROTOCOL.md section 15: "same
/// account, or for a guest the same `peer`"): an account by its key, a guest by its device's peer.
public struct MessageAuthor: Sendable, Hashable {
    /// The account's key (``ChatValidation/nickKey(_:)``); nil for a guest.
    public let accountKey: String?
    /// The device's peer id; a guest's only identity.
    public let peer: String?

    public init(account: String?, peer: String?) {
        accountKey = account.map(ChatValidation.nickKey)
        self.peer = peer?.uppercased()
    }

    /// The same author: the same account; for two guests, the same peer. An account and a guest
    /// are never the same author, even on one device (a guest's message is not the account's).
    public func isSame(as other: MessageAuthor) -> Bool {
        if let accountKey { return accountKey == other.accountKey }
        guard other.accountKey == nil, let peer else { return false }
        return peer == other.peer
    }
}
