import TestSupport

extension ChatServerProcess {
    /// The server's `stats` operator command, parsed.
    func statistics() -> [String: Int] {
        let isStats = { (line: String) in line.hasPrefix("stats ") }
        let earlier = process.lineCount(where: isStats)
        process.write("stats\n")
        let line = process.waitForLine(timeout: 10, skipping: earlier, where: isStats) ?? ""
        return Dictionary(line.split(separator: " ").dropFirst().compactMap { pair -> (String, Int)? in
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let value = Int(parts[1]) else { return nil }
            return (String(parts[0]), value)
        }, uniquingKeysWith: { $1 })
    }
}
