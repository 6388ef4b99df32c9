/// A script duration: `500ms`, `2s`, `1.5s`, `1m`, or a range `1s..3s` from which each use
/// draws uniformly (bots that chat at human, irregular pauses).
struct DurationRange: Equatable, Sendable, CustomStringConvertible {
    var minimumMilliseconds: UInt64
    var maximumMilliseconds: UInt64

    init(milliseconds: UInt64) {
        minimumMilliseconds = milliseconds
        maximumMilliseconds = milliseconds
    }

    init?(parsing text: some StringProtocol) {
        if let range = text.firstRange(of: "..") {
            guard let low = DurationRange.milliseconds(text[..<range.lowerBound]),
                  let high = DurationRange.milliseconds(text[range.upperBound...]), low <= high else { return nil }
            minimumMilliseconds = low
            maximumMilliseconds = high
        } else {
            guard let single = DurationRange.milliseconds(text) else { return nil }
            minimumMilliseconds = single
            maximumMilliseconds = single
        }
    }

    /// One draw from the range.
    func pick<Generator: RandomNumberGenerator>(using generator: inout Generator) -> UInt64 {
        minimumMilliseconds == maximumMilliseconds
            ? minimumMilliseconds : UInt64.random(in: minimumMilliseconds...maximumMilliseconds, using: &generator)
    }

    var description: String {
        minimumMilliseconds == maximumMilliseconds
            ? DurationRange.format(minimumMilliseconds)
            : "\(DurationRange.format(minimumMilliseconds))..\(DurationRange.format(maximumMilliseconds))"
    }

    /// `500ms`, `2s`, `0.5s`, `1m`; at most one day, so no arithmetic can overflow.
    static func milliseconds(_ text: some StringProtocol) -> UInt64? {
        let units: [(suffix: String, factor: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        for unit in units where text.hasSuffix(unit.suffix) {
            let number = text.dropLast(unit.suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                  let value = Double(number), value.isFinite, value * unit.factor <= 86_400_000 else { return nil }
            return UInt64((value * unit.factor).rounded())
        }
        return nil
    }

    static func format(_ milliseconds: UInt64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}
