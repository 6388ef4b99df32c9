/// A timestamp pattern as the configuration file gives it, strftime-like: `%H` hours, `%M`
/// minutes, `%S` seconds, `%d` day, `%m` month, `%y` two-digit year, `%Y` year, `%%` a percent
/// sign; any other character is copied, and an unknown `%x` is copied as it is. Every field has a
/// fixed width, so all timestamps of one pattern are equally wide (the renderer counts rows
/// without formatting). An empty pattern means no timestamp.
public struct TimestampFormat: Sendable, Equatable {
    public let pattern: String

    public init(_ pattern: String) {
        // What the person configured is shown on screen: keep it to printable characters.
        self.pattern = String(String.UnicodeScalarView(pattern.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
            .prefix(64).description
    }

    public static let minutes = TimestampFormat("%H:%M")
    public static let seconds = TimestampFormat("%H:%M:%S")
    /// The day of a day rule, of line mode's day line and of a log's lines.
    public static let date = TimestampFormat("%Y-%m-%d")

    /// The local day of a Unix time in milliseconds (days since 1970-01-01 in the zone), which
    /// tells whether two lines were written on the same day.
    public static func day(of milliseconds: Int64, utcOffsetSeconds: Int) -> Int64 {
        floorDivision(floorDivision(milliseconds, 1000) + Int64(utcOffsetSeconds), 86_400)
    }

    public var isEmpty: Bool { pattern.isEmpty }

    /// Columns of every formatted time (counted in characters: patterns are short and plain).
    public var width: Int { format(0, utcOffsetSeconds: 0).count }

    /// The pattern applied to a Unix time in milliseconds, shifted by the zone offset.
    public func format(_ milliseconds: Int64, utcOffsetSeconds: Int) -> String {
        let seconds = Self.floorDivision(milliseconds, 1000) + Int64(utcOffsetSeconds)
        let days = Self.floorDivision(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = Self.civilDate(daysSinceEpoch: days)
        var result = ""
        var iterator = pattern.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            guard let field = iterator.next() else {
                result.append("%")
                break
            }
            switch field {
            case "H": result += Self.twoDigits(secondOfDay / 3600)
            case "M": result += Self.twoDigits(secondOfDay / 60 % 60)
            case "S": result += Self.twoDigits(secondOfDay % 60)
            case "d": result += Self.twoDigits(day)
            case "m": result += Self.twoDigits(month)
            case "y": result += Self.twoDigits(Int((year % 100 + 100) % 100))
            case "Y": result += String(year).leftPadded(to: 4)
            case "%": result.append("%")
            default: result += "%" + String(field)
            }
        }
        return result
    }

    static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }

    static func floorDivision(_ dividend: Int64, _ divisor: Int64) -> Int64 {
        let quotient = dividend / divisor
        return dividend % divisor < 0 ? quotient - 1 : quotient
    }

    /// Year, month and day of a day count since 1970-01-01 (Howard Hinnant's civil_from_days).
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = floorDivision(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
