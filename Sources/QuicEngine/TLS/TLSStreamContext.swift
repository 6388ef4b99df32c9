internal import CQuic

/// What every TLS stream session of one client shares: the configuration, the CA certificates
/// loaded once (not once per connection), and a scratch buffer records are decrypted into.
/// Used from one thread, like the sessions it makes.
public final class TLSStreamContext {
    public let configuration: TLSStreamConfiguration
    let credentials: TLSCredentials
    /// One TLS record's plaintext at most (16 KiB) and some room.
    static let scratchSize = 32 << 10
    /// Allocated last in `init`: an init that throws runs no `deinit`, so nothing allocated
    /// before a throw may need freeing.
    let scratch: UnsafeMutableRawPointer

    public init(_ configuration: TLSStreamConfiguration) throws {
        if !configuration.insecureSkipVerification && configuration.trustedCAPath == nil {
            throw QuicError.invalidConfiguration("a client that verifies the server needs a CA file (or the insecure switch)")
        }
        self.configuration = configuration
        credentials = try TLSCredentials(QuicTLSConfiguration(trustedCAPath: configuration.trustedCAPath, alpn: []))
        scratch = UnsafeMutableRawPointer.allocate(byteCount: Self.scratchSize, alignment: 16)
    }

    deinit { scratch.deallocate() }
}
