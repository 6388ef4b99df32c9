/// JSON numbers. The protocol only has integer fields, so numbers are checked against the
/// full RFC 8259 grammar but only integers are ever converted.
extension JSONParser {
    /// Scans `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` at `position`.
    mutating func scanNumber() throws(ChatDecodeError) -> JSONNumberToken {
        let start = position
        if current == ASCII.minus { position += 1 }
        if current == ASCII.zero {
            position += 1
        } else if ASCII.isDigit(current) {
            skipDigits()
        } else {
            throw .badJSON
        }
        var isInteger = true
        if current == ASCII.period {
            position += 1
            guard ASCII.isDigit(current) else { throw .badJSON }
            skipDigits()
            isInteger = false
        }
        if current == ASCII.lowerE || current == ASCII.upperE {
            position += 1
            if current == ASCII.plus || current == ASCII.minus { position += 1 }
            guard ASCII.isDigit(current) else { throw .badJSON }
            skipDigits()
            isInteger = false
        }
        return JSONNumberToken(start: start, end: position, isInteger: isInteger)
    }

    private mutating func skipDigits() {
        while ASCII.isDigit(current) { position += 1 }
    }

    /// The value of a scanned integer, or nil when it does not fit in an `Int64`.
    func int64(_ token: JSONNumberToken) -> Int64? {
        var index = token.start
        let isNegative = bytes[index] == ASCII.minus
        if isNegative { index += 1 }
        var magnitude: UInt64 = 0
        while index < token.end {
            let (shifted, shiftOverflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, addOverflow) = shifted.addingReportingOverflow(UInt64(bytes[index] - ASCII.zero))
            if shiftOverflow || addOverflow { return nil }
            magnitude = sum
            index += 1
        }
        if isNegative {
            // Int64.min has no positive counterpart, hence the detour through its magnitude.
            if magnitude == Int64.min.magnitude { return Int64.min }
            return magnitude < Int64.min.magnitude ? -Int64(magnitude) : nil
        }
        return Int64(exactly: magnitude)
    }
}
