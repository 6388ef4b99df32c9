/// The text of a load message: `L<slot>.<seq>.<intended ns>` and padding to the requested size.
/// It carries what a receiver needs to measure latency from the intended send time and to
/// check, per sender, that nothing was lost, doubled or reordered.
struct LoadMessageText: Equatable, Sendable {
    /// The sending client's slot (0..<clients); a churned slot keeps its number.
    var slot: Int
    /// Per-slot sequence number, from 1.
    var seq: Int
    /// The intended send time on this process's monotonic clock, in nanoseconds.
    var intended: UInt64

    /// The text, padded with `x` to `size` bytes (never shorter than the header itself).
    func encoded(size: Int) -> String {
        let header = "L\(slot).\(seq).\(intended)"
        let padding = size - header.utf8.count - 1
        return padding > 0 ? header + " " + String(repeating: "x", count: padding) : header
    }

    /// Reads the header of a load message; nil for any other text.
    init?(decoding text: String) {
        var numbers: [UInt64] = []
        var current: UInt64 = 0
        var digits = 0
        var utf8 = text.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "L") else { return nil }
        while let byte = utf8.next() {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                let (product, overflow) = current.multipliedReportingOverflow(by: 10)
                guard !overflow, digits < 20 else { return nil }
                current = product + UInt64(byte - UInt8(ascii: "0"))
                digits += 1
            } else if byte == UInt8(ascii: "."), digits > 0, numbers.count < 2 {
                numbers.append(current)
                current = 0
                digits = 0
            } else if byte == UInt8(ascii: " ") {
                break
            } else {
                return nil
            }
        }
        guard digits > 0, numbers.count == 2, numbers[0] <= UInt64(Int.max), numbers[1] <= UInt64(Int.max) else { return nil }
        slot = Int(numbers[0])
        seq = Int(numbers[1])
        intended = current
    }

    init(slot: Int, seq: Int, intended: UInt64) {
        self.slot = slot
        self.seq = seq
        self.intended = intended
    }
}
