import CLIOptions
import ChatProtocol
import ChatServerCore
import Glibc

/// Log lines on stderr, one event a line: time, level, a constant event name, then key/value
/// details, as text or JSON. Under systemd (stderr is the journal) each line starts with its
/// syslog priority, `<6>`, which the journal takes as the entry's priority and strips.
struct Logger {
    var threshold: LogLevel
    var format: LogFormat
    let journalPriorities: Bool

    init(threshold: LogLevel, format: LogFormat, journalPriorities: Bool = Logger.stderrIsJournal()) {
        self.threshold = threshold
        self.format = format
        self.journalPriorities = journalPriorities
    }

    func log(_ level: LogLevel, _ event: String, _ fields: [String: String] = [:]) {
        guard level >= threshold else { return }
        let prefix = journalPriorities ? "<\(Logger.syslogPriority(level))>" : ""
        Console.error(prefix + line(level, event, fields, time: Logger.timestamp()))
    }

    /// One line without its journal prefix.
    func line(_ level: LogLevel, _ event: String, _ fields: [String: String], time: String) -> String {
        let sorted = fields.sorted(by: { $0.key < $1.key })
        switch format {
        case .text:
            var line = "\(time) \(level.name) \(event)"
            for (key, value) in sorted { line += " \(key)=\(Logger.quoted(value))" }
            return line
        case .json:
            var line = "{\"time\":\(JSONString.quoted(time)),\"level\":\(JSONString.quoted(level.name)),\"event\":\(JSONString.quoted(event))"
            for (key, value) in sorted where key != "time" && key != "level" && key != "event" {
                line += ",\(JSONString.quoted(key)):\(JSONString.quoted(value))"
            }
            return line + "}"
        }
    }

    /// RFC 5424 severities: error 3, warning 4, info 6, debug 7.
    static func syslogPriority(_ level: LogLevel) -> Int {
        switch level {
        case .error: 3
        case .warning: 4
        case .info: 6
        case .debug: 7
        }
    }

    /// systemd sets JOURNAL_STREAM to the device and inode of the journal stream it connected
    /// stderr to; a shell redirect later would give stderr another inode.
    static func stderrIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    private static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.asciiValue.map { $0 < 32 } ?? false }
        guard needsQuotes else { return value }
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 32 || scalar.value == 127: escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    private static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var time = tm()
        var seconds = spec.tv_sec
        gmtime_r(&seconds, &time)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = spec.tv_nsec / 1_000_000
        let milliText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(time.tm_year + 1900)-\(two(time.tm_mon + 1))-\(two(time.tm_mday))T\(two(time.tm_hour)):\(two(time.tm_min)):\(two(time.tm_sec)).\(milliText)Z"
    }
}

/// Wall-clock Unix milliseconds, the `ts` of chat events.
func unixMilliseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec / 1_000_000)
}
