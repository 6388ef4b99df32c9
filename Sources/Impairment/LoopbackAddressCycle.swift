import EventRuntime

/// The source addresses for address rebinding: 127.0.0.2 up to 127.0.0.254, then around again.
/// Linux routes all of 127.0.0.0/8 to lo, so binding to them needs no setup. 127.0.0.1 is left
/// out because it is where clients start.
struct LoopbackAddressCycle {
    private var nextOctet: UInt8 = 2

    /// The next address, port 0 (the kernel picks one at bind).
    mutating func next() -> SocketAddress {
        let address = SocketAddress.loopback(nextOctet)
        nextOctet = nextOctet == 254 ? 2 : nextOctet + 1
        return address
    }
}
