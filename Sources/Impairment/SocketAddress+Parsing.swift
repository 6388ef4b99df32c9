import EventRuntime

extension SocketAddress {
    /// Parses the proxy's `a.b.c.d:port` or `localhost:port` (flags and stdin commands): IPv4
    /// only, because rebinding cycles 127.0.0.x source addresses.
    init(parsing text: String) throws(ImpairmentError) {
        guard let colon = text.lastIndex(of: ":"),
            let port = UInt16(text[text.index(after: colon)...])
        else {
            throw .invalidArgument("'\(text)' is not an address: expected IPv4:PORT, e.g. 127.0.0.1:4433")
        }
        let hostText = String(text[..<colon])
        if hostText == "localhost" {
            self = .loopback(1, port: port)
            return
        }
        guard let address = SocketAddress(host: hostText, port: port), !address.isIPv6 else {
            throw .invalidArgument("'\(hostText)' is not an IPv4 address (IPv6 is not supported)")
        }
        self = address
    }
}
