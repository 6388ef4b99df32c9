import EventRuntime

/// The units people type on the command line and on stdin: durations, probabilities, rates and
/// byte counts. Every error message repeats the offending text and an example that works.
public enum ValueParser {
    /// `250us`, `100ms`, `1.5s`, `2m`; a bare `0` is allowed. A number without a unit is an error
    /// because "100" could mean seconds or milliseconds and a wrong guess wastes a test run.
    public static func duration(_ text: String) throws(ImpairmentError) -> TimeSpan {
        let units: [(suffix: String, nanoseconds: Double)] = [
            ("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9),
        ]
        let trimmed = text.trimmingWhitespace()
        if trimmed == "0" { return .zero }
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            let number = trimmed.dropLast(unit.suffix.count)
            // "ms" also ends in "s": only accept when what is left is a plain number.
            if let value = Double(number), value >= 0, value * unit.nanoseconds < 0x1p63 {
                return TimeSpan(nanoseconds: UInt64((value * unit.nanoseconds).rounded()))
            }
        }
        throw .invalidArgument("'\(text)' is not a duration: use a unit, e.g. 250us, 100ms, 1.5s, 2m")
    }

    /// `0.3` or `30%`, within 0...1.
    public static func probability(_ text: String) throws(ImpairmentError) -> Double {
        let trimmed = text.trimmingWhitespace()
        let value: Double?
        if trimmed.hasSuffix("%") {
            value = Double(trimmed.dropLast()).map { $0 / 100 }
        } else {
            value = Double(trimmed)
        }
        guard let value, (0...1).contains(value) else {
            throw .invalidArgument("'\(text)' is not a probability: use 0...1 or a percentage, e.g. 0.05 or 5%")
        }
        return value
    }

    /// Bytes per second: a bare number is bytes; `kB`, `MB`, `GB` are powers of 1000 bytes;
    /// `kbit`, `Mbit`, `Gbit` (or `kbps`, `mbps`, `gbps`) are bits. An optional `/s` is ignored.
    /// `0` means unlimited.
    public static func rate(_ text: String) throws(ImpairmentError) -> Int64 {
        var trimmed = text.trimmingWhitespace().lowercased()
        if trimmed.hasSuffix("/s") { trimmed.removeLast(2) }
        let units: [(suffix: String, bytes: Double)] = [
            ("kbit", 125), ("mbit", 125e3), ("gbit", 125e6), ("kbps", 125), ("mbps", 125e3), ("gbps", 125e6),
            ("bit", 0.125), ("bps", 0.125),
            ("kb", 1e3), ("mb", 1e6), ("gb", 1e9), ("b", 1),
        ]
        if let value = number(trimmed, units: units), value >= 0 {
            return Int64(value.rounded())
        }
        throw .invalidArgument("'\(text)' is not a rate: bytes per second, e.g. 250000, 250kB, 2Mbit")
    }

    /// A byte count: a bare number, or `kB`, `MB` (powers of 1000), `KiB`, `MiB` (powers of 1024).
    public static func byteCount(_ text: String) throws(ImpairmentError) -> Int64 {
        let trimmed = text.trimmingWhitespace().lowercased()
        let units: [(suffix: String, bytes: Double)] = [
            ("kib", 1024), ("mib", 1_048_576), ("kb", 1e3), ("mb", 1e6), ("k", 1e3), ("m", 1e6), ("b", 1),
        ]
        if let value = number(trimmed, units: units), value >= 0 {
            return Int64(value.rounded())
        }
        throw .invalidArgument("'\(text)' is not a byte count, e.g. 65536, 64kB, 1MiB")
    }

    /// `START+DURATION`, e.g. `5s+5s`: a blackhole window relative to proxy start.
    public static func blackholeWindow(_ text: String) throws(ImpairmentError) -> BlackholeWindow {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .invalidArgument("'\(text)' is not a blackhole window: use START+DURATION, e.g. 5s+5s")
        }
        return BlackholeWindow(start: try duration(String(parts[0])), duration: try duration(String(parts[1])))
    }

    /// A whole number within `range`.
    public static func integer(_ text: String, in range: ClosedRange<Int>, what: String) throws(ImpairmentError) -> Int {
        guard let value = Int(text.trimmingWhitespace()), range.contains(value) else {
            throw .invalidArgument("'\(text)' is not a valid \(what): a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// The number before the first matching unit suffix (or the whole text as a plain number).
    private static func number(_ text: String, units: [(suffix: String, bytes: Double)]) -> Double? {
        if let plain = Double(text) { return plain.isFinite ? plain : nil }
        for unit in units where text.hasSuffix(unit.suffix) {
            if let value = Double(text.dropLast(unit.suffix.count)), value.isFinite {
                return value * unit.bytes
            }
        }
        return nil
    }
}
