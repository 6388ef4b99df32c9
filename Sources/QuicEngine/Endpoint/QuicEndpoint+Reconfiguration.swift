/// A running server's settings changing (a configuration reload), and figures gathered across
/// its connections on demand.
extension QuicEndpoint {
    /// New connections are admitted by `configuration`'s limits and handshake with credentials
    /// loaded afresh from its files, so a renewed certificate under the same path is served at
    /// once; connections already open keep the credentials and settings they started with.
    /// Throws, changing nothing, when the certificate, key or CA cannot be loaded.
    ///
    /// The session ticket key follows the private key, as at a start: with a new key, clients
    /// holding tickets of the old one make a full handshake and see the new certificate. The
    /// secret behind stateless resets and Retry tokens stays the one derived at start: the reset
    /// tokens of open connections, and Retry tokens in flight, must stay valid.
    public func reconfigure(server configuration: QuicServerConfiguration) throws {
        guard server != nil else { throw QuicError.invalidConfiguration("a client endpoint has no server settings") }
        guard configuration.connection.tls.certificateChainPath != nil else {
            throw QuicError.invalidConfiguration("a server needs a certificate and key")
        }
        let credentials = try QuicEndpoint.credentials(for: configuration)
        server = configuration
        serverCredentials = credentials
    }

    /// Packets with STREAM frames declared lost since the start, by every connection.
    public var streamPacketsLost: Int {
        var lost = statistics.streamPacketsLostByRemovedConnections
        for connection in connections.values { lost += connection.lostStreamPackets }
        return lost
    }
}
