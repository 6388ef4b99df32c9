internal import CQuic
import RuntimeCore

/// A QUIC connection ID (at most 20 bytes) stored inline, used as the routing key.
struct ConnectionID: Hashable, CustomStringConvertible {
    private(set) var length: UInt8
    private var word0: UInt64 = 0
    private var word1: UInt64 = 0
    private var word2: UInt32 = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        var raw = ngtcp2_cid()
        let usable = UnsafeRawBufferPointer(rebasing: bytes.prefix(20))
        withUnsafeMutableBytes(of: &raw.data) { $0.copyMemory(from: usable) }
        self.init(raw: raw.data, length: usable.count)
    }

    init(_ cid: ngtcp2_cid) {
        self.init(raw: cid.data, length: cid.datalen)
    }

    private init(raw: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                       UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8), length: Int) {
        self.length = UInt8(min(length, 20))
        var copy = raw
        withUnsafeBytes(of: &copy) { bytes in
            var padded = (UInt64(0), UInt64(0), UInt32(0))
            withUnsafeMutableBytes(of: &padded) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(Int(self.length))))
            }
            word0 = padded.0
            word1 = padded.1
            word2 = padded.2
        }
    }

    static func random(length: Int, from random: RandomBytes) -> ConnectionID {
        var raw = ngtcp2_cid()
        let usable = min(length, 20)
        withUnsafeMutableBytes(of: &raw.data) { random.fill($0.baseAddress!, count: usable) }
        return ConnectionID(raw: raw.data, length: usable)
    }

    var ngtcp2: ngtcp2_cid {
        var cid = ngtcp2_cid()
        cid.datalen = Int(length)
        var words = (word0, word1, word2)
        withUnsafeBytes(of: &words) { source in
            withUnsafeMutableBytes(of: &cid.data) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(Int(length)))) }
        }
        return cid
    }

    var description: String {
        var cid = ngtcp2
        return withUnsafeBytes(of: &cid.data) { bytes in
            bytes.prefix(Int(length)).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        }
    }
}
