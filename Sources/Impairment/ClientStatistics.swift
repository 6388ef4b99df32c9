import EventRuntime

/// Traffic of one client address, for checks such as QUIC's anti-amplification limit: before
/// the server validates a client, `downBytes` (what the server sent) may be at most three times
/// `upForwardedBytes` (what the server received).
public struct ClientStatistics: Sendable, Equatable {
    public var address: SocketAddress
    /// The proxy's current source address toward the server for this client.
    public var upstreamAddress: SocketAddress
    /// Received from the client.
    public var upPackets = 0
    public var upBytes = 0
    /// Received from the server for this client.
    public var downPackets = 0
    public var downBytes = 0
    /// Actually sent on, after impairments.
    public var upForwardedPackets = 0
    public var upForwardedBytes = 0
    public var downForwardedPackets = 0
    public var downForwardedBytes = 0
    public var rebinds = 0

    public init(address: SocketAddress, upstreamAddress: SocketAddress) {
        self.address = address
        self.upstreamAddress = upstreamAddress
    }
}
