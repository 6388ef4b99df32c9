import Glibc

/// An IPv4 address and UDP port, cheap to hash so it can key the client table per packet.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The IPv4 address in host byte order (127.0.0.1 is 0x7F00_0001).
    public var host: UInt32
    public var port: UInt16

    public init(host: UInt32, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// 127.0.0.`lastOctet`: the rebinding cycle's addresses, all local on Linux without setup.
    public static func loopback(_ lastOctet: UInt8, port: UInt16 = 0) -> SocketAddress {
        SocketAddress(host: 0x7F00_0000 | UInt32(lastOctet), port: port)
    }

    /// 0.0.0.0: lets the kernel choose the source address per destination.
    public static let anyHost: UInt32 = 0

    /// Parses `a.b.c.d:port` or `localhost:port`.
    public init(parsing text: String) throws(ImpairmentError) {
        guard let colon = text.lastIndex(of: ":"),
            let port = UInt16(text[text.index(after: colon)...])
        else {
            throw .invalidArgument("'\(text)' is not an address: expected IPv4:PORT, e.g. 127.0.0.1:4433")
        }
        let hostText = String(text[..<colon])
        guard let host = hostText == "localhost" ? 0x7F00_0001 : SocketAddress.parseIPv4(hostText) else {
            throw .invalidArgument("'\(hostText)' is not an IPv4 address (IPv6 is not supported)")
        }
        self.init(host: host, port: port)
    }

    /// Dotted quad to host byte order; nil unless exactly four numbers 0...255.
    public static func parseIPv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, let octet = UInt8(part) else { return nil }
            value = value << 8 | UInt32(octet)
        }
        return value
    }

    public var isLoopback: Bool { host >> 24 == 127 }

    /// The address alone, `a.b.c.d`.
    public var hostDescription: String {
        "\(host >> 24).\(host >> 16 & 0xFF).\(host >> 8 & 0xFF).\(host & 0xFF)"
    }

    public var description: String { "\(hostDescription):\(port)" }

    init(_ raw: sockaddr_in) {
        self.init(host: UInt32(bigEndian: raw.sin_addr.s_addr), port: UInt16(bigEndian: raw.sin_port))
    }

    var sockaddr: sockaddr_in {
        var raw = sockaddr_in()
        raw.sin_family = sa_family_t(AF_INET)
        raw.sin_port = port.bigEndian
        raw.sin_addr.s_addr = host.bigEndian
        return raw
    }
}
