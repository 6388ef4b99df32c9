import Digest

/// A peer id as the shared store knows it: the first 32 hex digits of the SHA-256 of its upper-case
/// form. A peer id takes a session over (REPLACED), so it is never stored or logged as it is.
public enum PeerDigest {
    public static func of(_ peer: String) -> String {
        let hash = SHA256()
        hash.update(Array(peer.uppercased().utf8))
        return String(hash.finishHex().prefix(32))
    }
}
