/// Where a scanned JSON number lies in the input.
struct JSONNumberToken {
    let start: Int
    let end: Int
    /// True when the number has neither a fraction nor an exponent.
    let isInteger: Bool
}
