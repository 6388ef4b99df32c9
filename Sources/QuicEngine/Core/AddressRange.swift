import RuntimeCore

/// A block of IP addresses in CIDR notation (`127.0.0.0/8`, `::1/128`, `10.1.2.3` for one
/// address), as the server's exemptions from its per-address connection limit are written.
public struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    private enum Block: Hashable, Sendable {
        case v4(network: UInt32, prefix: Int)
        case v6(high: UInt64, low: UInt64, prefix: Int)
    }

    private let block: Block

    /// The loopback ranges, IPv4 and IPv6: local bots and tests.
    public static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]

    /// Parses `ADDRESS/PREFIX` or a bare address (a block of one); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = SocketAddress(host: String(parts[0]), port: 0) else { return nil }
        switch address {
        case .v4(let bits, _):
            guard let prefix = AddressRange.prefix(parts, maximum: 32) else { return nil }
            block = .v4(network: bits & AddressRange.mask32(prefix), prefix: prefix)
        case .v6(let bits, _, _):
            guard let prefix = AddressRange.prefix(parts, maximum: 128) else { return nil }
            let (high, low) = AddressRange.hostOrder(bits)
            let (highMask, lowMask) = AddressRange.mask128(prefix)
            block = .v6(high: high & highMask, low: low & lowMask, prefix: prefix)
        }
    }

    /// Whether `address` lies in the block; an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, as a
    /// dual-stack socket reports IPv4 clients) counts as its IPv4 address.
    public func contains(_ address: SocketAddress) -> Bool {
        switch (block, address.unmappingIPv4) {
        case (.v4(let network, let prefix), .v4(let bits, _)):
            return bits & AddressRange.mask32(prefix) == network
        case (.v6(let high, let low, let prefix), .v6(let bits, _, _)):
            let (addressHigh, addressLow) = AddressRange.hostOrder(bits)
            let (highMask, lowMask) = AddressRange.mask128(prefix)
            return addressHigh & highMask == high && addressLow & lowMask == low
        default:
            return false
        }
    }

    public var description: String {
        switch block {
        case .v4(let network, let prefix):
            return "\(SocketAddress.v4(address: network, port: 0).host)/\(prefix)"
        case .v6(let high, let low, let prefix):
            let bits = IPv6Bits(high: high.bigEndian, low: low.bigEndian)
            return "\(SocketAddress.v6(address: bits, port: 0, scope: 0).host)/\(prefix)"
        }
    }

    private static func prefix(_ parts: [Substring], maximum: Int) -> Int? {
        guard parts.count == 2 else { return maximum }
        guard let prefix = Int(parts[1]), (0...maximum).contains(prefix) else { return nil }
        return prefix
    }

    private static func mask32(_ prefix: Int) -> UInt32 {
        prefix == 0 ? 0 : UInt32.max << UInt32(32 - prefix)
    }

    private static func mask128(_ prefix: Int) -> (UInt64, UInt64) {
        let highBits = min(prefix, 64)
        let lowBits = max(prefix - 64, 0)
        return (highBits == 0 ? 0 : UInt64.max << UInt64(64 - highBits), lowBits == 0 ? 0 : UInt64.max << UInt64(64 - lowBits))
    }

    /// The address's two halves as numbers, most significant bit first.
    static func hostOrder(_ bits: IPv6Bits) -> (UInt64, UInt64) {
        (UInt64(bigEndian: bits.high), UInt64(bigEndian: bits.low))
    }
}

extension SocketAddress {
    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`); other addresses as they are.
    var unmappingIPv4: SocketAddress {
        guard case .v6(let bits, let port, _) = self else { return self }
        let (high, low) = AddressRange.hostOrder(bits)
        guard high == 0, low >> 32 == 0xFFFF else { return self }
        return .v4(address: UInt32(truncatingIfNeeded: low), port: port)
    }

    /// The key under which connections from one client are counted: the IPv4 address, or the
    /// IPv6 /64 (one site or household; an IPv6 host can use any address of its /64).
    public var clientKey: SocketAddress {
        switch unmappingIPv4 {
        case .v4(let address, _):
            return .v4(address: address, port: 0)
        case .v6(let bits, _, _):
            return .v6(address: IPv6Bits(high: bits.high, low: 0), port: 0, scope: 0)
        }
    }
}
