import EventRuntime

/// A snapshot of everything the proxy counted, as printed by `stats` and at exit.
public struct ProxyStatistics: Sendable, Equatable {
    public var seed: UInt64
    public var uptime: TimeSpan
    public var listenAddress: SocketAddress
    public var serverAddress: SocketAddress
    public var up: DirectionStatistics
    public var down: DirectionStatistics
    /// In order of first packet.
    public var clients: [ClientStatistics]
    public var rebinds: Int
    /// How often the loop woke up (returned from its wait): a check that it sleeps instead of spinning.
    public var loopWakeups: Int

    public func client(_ address: SocketAddress) -> ClientStatistics? {
        clients.first { $0.address == address }
    }
}
