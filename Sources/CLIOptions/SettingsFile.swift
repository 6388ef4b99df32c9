/// A configuration file of `key = value` lines: a line starting with `#` is a comment (only a
/// whole line: `rooms = #dev` means the room `#dev`), blank lines are ignored, keys are case-insensitive, a later line wins over an earlier one
/// (unless the program reads the key with ``lists(_:)``, which adds the lines up). A
/// program declares the keys it reads, so a misspelled one is an error with its line number, as
/// an unknown flag is.
public struct SettingsFile: Sendable, Equatable {
    /// The file's name as messages show it.
    public let name: String
    private var values: [String: (value: String, line: Int)] = [:]
    /// Every line of each key, in file order (``lists(_:)``).
    private var allValues: [String: [String]] = [:]

    public init(text: String, name: String, keys: Set<String>) throws(UsageError) {
        self.name = name
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let line = rawLine.trimmingWhitespace()
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw UsageError("\(name) line \(number): expected 'key = value', not '\(line)'")
            }
            let key = line[..<equals].trimmingWhitespace().lowercased()
            guard keys.contains(key) else {
                throw UsageError("\(name) line \(number): unknown setting '\(key)' (known: \(keys.sorted().joined(separator: ", ")))")
            }
            values[key] = (line[line.index(after: equals)...].trimmingWhitespace(), number)
            allValues[key, default: []].append(values[key]!.value)
        }
    }

    public static func == (lhs: SettingsFile, rhs: SettingsFile) -> Bool {
        lhs.name == rhs.name && lhs.values.mapValues(\.value) == rhs.values.mapValues(\.value)
    }

    public func string(_ key: String) -> String? { values[key]?.value }

    /// A comma-separated list, each item trimmed, empty items dropped.
    public func list(_ key: String) -> [String]? {
        string(key).map { $0.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty } }
    }

    /// A key that may repeat: the comma-separated items of all its lines, in file order (for a key
    /// whose lines add up instead of the later one winning).
    public func lists(_ key: String) -> [String]? {
        allValues[key].map { $0.flatMap { $0.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty } } }
    }

    /// `on`/`off` (also `yes`/`no`, `true`/`false`, `1`/`0`).
    public func bool(_ key: String) throws(UsageError) -> Bool? {
        guard let entry = values[key] else { return nil }
        switch entry.value.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw UsageError("\(name) line \(entry.line): \(key) must be on or off, not '\(entry.value)'")
        }
    }

    /// A decimal number within `range` (rates, seconds).
    public func double(_ key: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let entry = values[key] else { return nil }
        guard let value = Double(entry.value), value.isFinite, range.contains(value) else {
            throw UsageError("\(name) line \(entry.line): \(key) must be a number in \(range.lowerBound)...\(range.upperBound), not '\(entry.value)'")
        }
        return value
    }

    /// The line that set `key`, for messages about its value.
    public func line(of key: String) -> Int? { values[key]?.line }

    /// A whole number within `range`.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let entry = values[key] else { return nil }
        guard let value = Int(entry.value), range.contains(value) else {
            throw UsageError("\(name) line \(entry.line): \(key) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(entry.value)'")
        }
        return value
    }
}

extension StringProtocol {
    public func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
