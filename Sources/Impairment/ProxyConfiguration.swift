import EventRuntime

/// Everything `udp-impair` is started with. The impairment profiles and blackholes can change
/// later through commands; addresses, seed and rebinding schedule cannot.
public struct ProxyConfiguration: Sendable, Equatable {
    /// Where clients send; port 0 lets the kernel choose (see `ImpairmentProxy.listenAddress`).
    public var listenAddress = SocketAddress.loopback(1, port: 0)
    public var serverAddress: SocketAddress
    /// Client → server.
    public var up = ImpairmentProfile()
    /// Server → client.
    public var down = ImpairmentProfile()
    public var blackholes: [BlackholeWindow] = []
    /// Seeds the random decisions; the up and down directions draw from separate streams derived
    /// from it, so one direction's decisions do not depend on the other's traffic.
    public var seed: UInt64
    /// Rebinds every client at this period, counted from proxy start.
    public var rebindInterval: TimeSpan?
    /// Scheduled rebinds also move to the next 127.0.0.x source address.
    public var rebindChangesAddress = false
    /// Stop (printing statistics) when the command input reaches end of file, so a proxy started
    /// by a test harness dies with it.
    public var exitWhenInputCloses = false

    public init(serverAddress: SocketAddress, seed: UInt64 = 1) {
        self.serverAddress = serverAddress
        self.seed = seed
    }

    /// Where a new client's upstream socket binds (port 0): 127.0.0.1 toward a loopback server so
    /// that reports show the address the server sees, otherwise 0.0.0.0, the kernel's choice.
    var initialUpstreamAddress: SocketAddress {
        serverAddress.isLoopback ? .loopback(1) : .v4(address: 0, port: 0)
    }
}
