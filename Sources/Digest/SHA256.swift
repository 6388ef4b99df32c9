internal import CGnuTLS
import RuntimeCore

/// The one SHA-256 (GnuTLS's, hence the CPU's SHA instructions where it has them): incremental
/// for file transfers (bytes go in as they stream past, the digest comes out at the end), whole
/// for the engine's keys and the shared store's peer digests.
///
/// Not Sendable: one thread feeds it (whoever owns it may hand it on inside a `Mutex`).
public final class SHA256 {
    public static let digestLength = 32
    private var handle: OpaquePointer?
    private var result: [UInt8]?

    public init() {
        var created: OpaquePointer?
        // Fails only without memory; a nil handle then gives an empty digest, which never matches.
        if gnutls_hash_init(&created, GNUTLS_DIG_SHA256) == 0 { handle = created }
    }

    deinit {
        if let handle { gnutls_hash_deinit(handle, nil) }
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let handle, let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = gnutls_hash(handle, base, bytes.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything fed in (32 bytes); feeding more afterwards changes nothing.
    public func finish() -> [UInt8] {
        if let result { return result }
        var digest = [UInt8](repeating: 0, count: SHA256.digestLength)
        if let handle {
            gnutls_hash_deinit(handle, &digest)
            self.handle = nil
        } else {
            digest = []
        }
        result = digest
        return digest
    }

    /// The digest as 64 lowercase hex digits, the protocol's `sha256` (PROTOCOL.md section 9).
    public func finishHex() -> String { SHA256.hex(finish()) }

    /// The SHA-256 of `bytes` as lowercase hex.
    public static func hex(of bytes: [UInt8]) -> String { hex(digest(of: bytes)) }

    /// The SHA-256 of `bytes` (32 bytes; empty only when GnuTLS could not allocate, which never
    /// matches a digest).
    public static func digest(of bytes: [UInt8]) -> [UInt8] {
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    /// Bytes as lowercase hex digits.
    public static func hex(_ bytes: some Collection<UInt8>) -> String { Hex.lowercase(bytes) }
}
