import CLIOptions

/// The server's settings from its command line and, with `--config FILE`, a configuration file
/// of `key = value` lines whose keys are the flags' names (`flood-burst = 20`, `retry = on`,
/// `exempt = 10.0.0.0/8, ::1/128`). A flag given on the command line wins over the file's key.
/// Errors name the flag (`--port must be ...`) or the file's line (`FILE line 3: port must be ...`).
struct ServerSettings {
    /// Configuration files longer than this are refused: a configuration is a few kilobytes.
    static let fileByteLimit = 1 << 20

    let commandLine: Options
    let file: SettingsFile?

    /// `valued` and `switches` are every flag the server knows; all of them but `onlyOnCommandLine`
    /// are keys of the file.
    init(_ arguments: [String], valued: Set<String>, switches: Set<String>, optionallyValued: Set<String> = [],
         onlyOnCommandLine: Set<String>) throws(UsageError) {
        commandLine = try Options(arguments, valued: valued, flags: switches, optionallyValued: optionallyValued)
        guard let path = commandLine.string("config") else {
            file = nil
            return
        }
        switch TextFile.read(path, byteLimit: ServerSettings.fileByteLimit) {
        case .success(let text):
            file = try SettingsFile(text: text, name: path,
                                    keys: valued.union(switches).union(optionallyValued).subtracting(onlyOnCommandLine))
        case .failure(let failure):
            throw UsageError("cannot read configuration file \(path): \(failure.text)")
        }
    }

    var positional: [String] { commandLine.positional }

    /// A switch: on the command line, or `on`/`off` in the file.
    func flag(_ name: String) throws(UsageError) -> Bool {
        if commandLine.flag(name) { return true }
        return try file?.bool(name) ?? false
    }

    func string(_ name: String) -> String? { commandLine.string(name) ?? file?.string(name) }

    /// A switch that may carry a value: nil when off (absent, or `off` in the file), else the
    /// value given ("" for none: the flag alone, or `on` in the file).
    func optionalValue(_ name: String) -> String? {
        if commandLine.flag(name) { return commandLine.string(name) ?? "" }
        guard let value = file?.string(name) else { return nil }
        switch value {
        case "off": return nil
        case "on": return ""
        default: return value
        }
    }

    func string(_ name: String, default fallback: String) -> String { string(name) ?? fallback }

    /// A repeatable flag's values; in the file, one key with a comma-separated list.
    func strings(_ name: String) -> [String] {
        let given = commandLine.strings(name)
        return given.isEmpty ? (file?.list(name) ?? []) : given
    }

    /// A bad value, named where it came from: `--NAME PROBLEM` or `FILE line N: NAME PROBLEM`.
    func invalid(_ name: String, _ problem: String) -> UsageError {
        if commandLine.string(name) == nil, let file, let line = file.line(of: name) {
            return UsageError("\(file.name) line \(line): \(name) \(problem)")
        }
        return UsageError("--\(name) \(problem)")
    }

    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        if commandLine.string(name) != nil { return try commandLine.integer(name, default: fallback, in: range) }
        return try file?.integer(name, in: range) ?? fallback
    }

    func double(_ name: String, default fallback: Double, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        if commandLine.string(name) != nil { return try commandLine.double(name, default: fallback, in: range) }
        return try file?.double(name, in: range) ?? fallback
    }
}
