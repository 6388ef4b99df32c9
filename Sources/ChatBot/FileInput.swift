import CLIOptions
import Glibc

/// Whole files for the command line, without Foundation.
enum FileInput {
    /// The contents of `path` (`-` is standard input) as UTF-8, or nil with errno set.
    static func read(_ path: String) -> String? {
        let result = path == "-" ? TextFile.read(descriptor: 0) : TextFile.read(path)
        switch result {
        case .success(let text): return text
        case .failure(let failure):
            if case .system(let code) = failure { errno = code }
            return nil
        }
    }

    /// Writes `text` to `path`, replacing it (created with `mode`); false on failure.
    static func write(_ text: String, to path: String, mode: mode_t = 0o644) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}
