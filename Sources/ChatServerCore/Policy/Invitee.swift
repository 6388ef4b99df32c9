/// Who an `invite` lets into an invite-only room: an account (by key), or a guest's peer id.
public enum Invitee: Sendable, Equatable, Hashable {
    case account(String)
    case peer(String)
    /// A guest connected through another node of several, known there by its device's digest
    /// (``ChatServerState/peerDigest``).
    case device(String)
}
