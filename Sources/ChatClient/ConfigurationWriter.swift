import Glibc

/// Changes one list setting of chat-client's configuration file (`ignore = a, b`), leaving every
/// other line as the person wrote it: the key's lines are replaced by one line (or it is added at
/// the end; an empty list removes it), the file rewritten whole (a new file renamed over the old,
/// 0600 when new). A file that cannot be written is said, and the setting holds for this run.
enum ConfigurationWriter {
    static func set(_ key: String, to values: [String], in path: String) -> String? {
        let old = ClientPaths.read(path) ?? ""
        var lines = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let isKey: (String) -> Bool = { line in
            let trimmed = line.trimmingWhitespace()
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { return false }
            return trimmed[..<equals].trimmingWhitespace().lowercased() == key
        }
        let replacement = values.isEmpty ? [] : ["\(key) = " + values.joined(separator: ", ")]
        if let first = lines.firstIndex(where: isKey) {
            lines = Array(lines[..<first]) + replacement + lines[(first + 1)...].filter { !isKey($0) }
        } else {
            lines += replacement
        }
        let text = lines.map { $0 + "\n" }.joined()
        if let slash = path.lastIndex(of: "/") { ClientPaths.makeDirectory(String(path[..<slash])) }
        var status = stat()
        let mode = stat(path, &status) == 0 ? status.st_mode & 0o777 : 0o600
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return "cannot write \(temporary): \(String(cString: strerror(errno)))" }
        writeAll(Array(text.utf8), to: descriptor)
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            return "cannot write \(path): \(String(cString: strerror(errno)))"
        }
        return nil
    }
}
