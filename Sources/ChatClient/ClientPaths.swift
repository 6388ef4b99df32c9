import ChatClientKit
import Glibc

/// Where chat-client keeps its files, after the XDG base directory specification: the
/// configuration (and a CA) under `$XDG_CONFIG_HOME/qchat` (default `~/.config/qchat`), the
/// private-message store and the logs under `$XDG_STATE_HOME/qchat` (default `~/.local/state/qchat`).
struct ClientPaths {
    let configDirectory: String
    let stateDirectory: String
    /// The directory of the running executable, for a CA installed beside it.
    let executableDirectory: String?

    init(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) {
        let home = environment("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? "."
        let configHome = environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let stateHome = environment("XDG_STATE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        configDirectory = configHome + "/qchat"
        stateDirectory = stateHome + "/qchat"
        executableDirectory = Self.executableDirectory()
    }

    var configurationFile: String { configDirectory + "/client.conf" }
    /// Servers trusted on first use (``KnownServers``).
    var knownServersFile: String { configDirectory + "/known_servers" }
    /// Servers trusted under the name they advertised on the local network (``KnownServers``
    /// `name:` lines), apart so that known_servers stays readable by earlier clients.
    var knownNamesFile: String { configDirectory + "/known_names" }
    var logDirectory: String { stateDirectory + "/logs" }
    var privateMessageDirectory: String { stateDirectory + "/private" }
    /// Session slots (``SessionSlot``): `sessions/<server>/<nick>/`.
    var sessionDirectory: String { stateDirectory + "/sessions" }

    /// Where a CA is looked for when neither --ca nor the configuration names one, in order.
    func caCandidates() -> [String] {
        var candidates = [configDirectory + "/ca.pem", "certs/ca.pem"]
        if let executableDirectory {
            // An installation (bin/ beside share/), then a build tree (.build/<triple>/release or
            // .build/release inside the repository, whose certs/ make certs fills).
            candidates.append(executableDirectory + "/../share/qchat/ca.pem")
            candidates.append(executableDirectory + "/../../certs/ca.pem")
            candidates.append(executableDirectory + "/../../../certs/ca.pem")
        }
        return candidates
    }

    func defaultCA() -> String? {
        caCandidates().first { access($0, R_OK) == 0 }
    }

    static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }

    /// A whole small text file, or nil when it cannot be read (at most 1 MiB).
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while bytes.count < 1 << 20 {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces a file of the person's whole (0600, its directory made 0700): written beside it,
    /// then renamed over it, so a reader sees the old text or the new, never half.
    static func replace(_ path: String, with text: String) {
        guard let slash = path.lastIndex(of: "/"), makeDirectory(String(path[..<slash])) else { return }
        let temporary = path + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        writeAll(Array(text.utf8), to: descriptor)
        close(descriptor)
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// Where `/get` saves files without a folder named: `$XDG_DOWNLOAD_DIR`, else `~/Downloads`.
    static func downloadFolder(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String {
        if let folder = environment("XDG_DOWNLOAD_DIR"), folder.hasPrefix("/") { return folder }
        return (environment("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? ".") + "/Downloads"
    }

    /// Creates a directory and its parents (mode 0700: private messages and logs are personal).
    @discardableResult
    static func makeDirectory(_ path: String) -> Bool { PrivateDirectory.make(path) }
}
