import EventRuntime

/// One client address and the upstream socket that stands for it toward the server, like one
/// NAT mapping. Rebinding replaces the socket and keeps the counters.
struct ClientSession {
    var address: SocketAddress
    var upstream: UDPSocket
    var statistics: ClientStatistics

    init(address: SocketAddress, upstream: UDPSocket) {
        self.address = address
        self.upstream = upstream
        statistics = ClientStatistics(address: address, upstreamAddress: upstream.localAddress)
    }
}
