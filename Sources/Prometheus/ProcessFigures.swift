import CLIOptions
import Glibc

/// The process's own figures under the names every Prometheus client library uses
/// (`process_cpu_seconds_total`, `process_resident_memory_bytes`, ...), read from /proc when a
/// page is built.
public struct ProcessFigures: Sendable {
    public var cpuSeconds = 0.0
    public var residentBytes = 0
    public var virtualBytes = 0
    public var openDescriptors = 0
    public var maxDescriptors = 0
    /// Unix time the process started, in seconds.
    public var startTime = 0.0

    /// The figures now; a figure /proc does not give stays 0.
    public static func current() -> ProcessFigures {
        var figures = ProcessFigures()
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        if case .success(let stat) = TextFile.read("/proc/self/stat"),
           let fields = ProcessFigures.fieldsAfterName(stat), fields.count > 21, ticks > 0 {
            // Fields 14 and 15 (utime, stime), 22 (starttime), 23 (vsize), 24 (rss in pages);
            // `fields` starts at field 3.
            let user = Double(fields[11]) ?? 0, system = Double(fields[12]) ?? 0
            figures.cpuSeconds = (user + system) / ticks
            figures.virtualBytes = Int(fields[20]) ?? 0
            figures.residentBytes = (Int(fields[21]) ?? 0) * pageSize
            if let started = Double(fields[19]), let boot = ProcessFigures.bootTime() {
                figures.startTime = boot + started / ticks
            }
        }
        figures.openDescriptors = ProcessFigures.countDescriptors()
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { figures.maxDescriptors = Int(clamping: limit.rlim_cur) }
        return figures
    }

    /// The fields of /proc/self/stat after `(comm)`, which may itself contain spaces and parentheses.
    static func fieldsAfterName(_ stat: String) -> [Substring]? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    private static func bootTime() -> Double? {
        guard case .success(let text) = TextFile.read("/proc/stat"),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }) else { return nil }
        return Double(line.dropFirst(6))
    }

    private static func countDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let first = withUnsafeBytes(of: entry.pointee.d_name) { $0.first ?? 0 }
            if first != UInt8(ascii: ".") { count += 1 }
        }
        // Not counting the descriptor of the directory being read.
        return max(0, count - 1)
    }
}
