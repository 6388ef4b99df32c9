import CLIOptions
import ChatServerCore
import Glibc

/// Log lines on stderr: time, level, a constant event name, then key=value details.
struct Logger {
    let threshold: LogLevel

    func log(_ level: LogLevel, _ event: String, _ fields: [String: String] = [:]) {
        guard level >= threshold else { return }
        var line = "\(Logger.timestamp()) \(level.name) \(event)"
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(Logger.quoted(value))"
        }
        Console.error(line)
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
