import EventRuntime
import Impairment

/// A UDP client that talks to the proxy like a QUIC client would: one socket, one source address.
final class TestClient {
    let socket: UDPSocket
    let proxy: SocketAddress

    init(proxy: SocketAddress) throws {
        socket = try UDPSocket(bindingTo: .loopback(1))
        self.proxy = proxy
    }

    deinit { socket.close() }

    var address: SocketAddress { socket.localAddress }

    func send(_ bytes: [UInt8]) throws {
        try socket.send(bytes, to: proxy)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// The next datagram from the proxy, or nil after `timeout` seconds.
    func receive(timeout: Double = 2) throws -> [UInt8]? {
        try socket.receive(timeout: timeout)?.bytes
    }

    /// Sends `text` and returns the reply as text (nil on timeout).
    func roundTrip(_ text: String, timeout: Double = 2) throws -> String? {
        try send(text)
        return try receive(timeout: timeout).map { String(decoding: $0, as: UTF8.self) }
    }
}
