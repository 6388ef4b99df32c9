/// A bad command line: the executables print `message` and exit with status 2.
public struct UsageError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Parsed `--name value` options, `--switch` flags and positional arguments. Every option a
/// program reads must be declared, so a misspelled flag is an error instead of being ignored.
public struct Options {
    public private(set) var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var switches: Set<String> = []

    /// `valued` names take a value (`--port 4433` or `--port=4433`); `flags` take none;
    /// `optionallyValued` ones are flags that take the next argument as their value when it is
    /// not an option itself (`--advertise`, `--advertise NAME`, `--advertise=NAME`).
    public init(_ arguments: [String], valued: Set<String>, flags: Set<String>,
                optionallyValued: Set<String> = []) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if optionallyValued.contains(name) {
                switches.insert(name)
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else if index < arguments.count, !arguments[index].hasPrefix("-") {
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else if flags.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                switches.insert(name)
            } else if valued.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    public func flag(_ name: String) -> Bool { switches.contains(name) }

    public func string(_ name: String) -> String? { values[name]?.last }

    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    public func string(_ name: String, default fallback: String) -> String { string(name) ?? fallback }

    /// An integer option within `range`, or `fallback` when absent.
    public func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int> = Int.min...Int.max) throws(UsageError) -> Int {
        guard let text = string(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// A decimal option within `range` (seconds, rates), or `fallback` when absent.
    public func double(_ name: String, default fallback: Double, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let text = string(name) else { return fallback }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw UsageError("--\(name) must be a number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return value
    }
}
