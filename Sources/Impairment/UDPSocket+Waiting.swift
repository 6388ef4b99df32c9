import Glibc

extension UDPSocket {
    /// Waits up to `timeout` seconds for one datagram: for tests and simple peers that have no
    /// loop of their own. nil on timeout.
    public func receive(timeout: Double, maximumLength: Int = 65536) throws -> (bytes: [UInt8], source: SocketAddress)? {
        let deadline = MonotonicClock.now() + Nanoseconds(timeout * 1e9)
        var bytes = [UInt8](repeating: 0, count: maximumLength)
        while true {
            let received = try bytes.withUnsafeMutableBytes { buffer in try receive(into: buffer) }
            if let received {
                bytes.removeSubrange(received.count...)
                return (bytes, received.source)
            }
            let remaining = deadline - MonotonicClock.now()
            if remaining <= 0 { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            // Round up so a sub-millisecond remainder waits rather than spinning.
            let milliseconds = Int32((remaining + 999_999) / 1_000_000)
            try systemCall("poll") { poll(&entry, 1, milliseconds) }
        }
    }
}
