/// The source addresses for address rebinding: 127.0.0.2 up to 127.0.0.254, then around again.
/// Linux routes all of 127.0.0.0/8 to lo, so binding to them needs no setup. 127.0.0.1 is left
/// out because it is where clients start.
struct LoopbackAddressCycle {
    private var nextOctet: UInt8 = 2

    mutating func next() -> UInt32 {
        let host = SocketAddress.loopback(nextOctet).host
        nextOctet = nextOctet == 254 ? 2 : nextOctet + 1
        return host
    }
}
