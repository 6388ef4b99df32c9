/// What `--version` prints for every qchat executable: the program, the qchat release and the
/// libraries it runs with.
public enum ProgramVersion {
    /// The qchat release, in one place: `make deb` reads the package version from this line.
    public static let release = "1.0.0"

    /// The wire protocol every executable speaks (PROTOCOL.md).
    public static let protocolName = "qchat/1"

    /// One line: `chat-server 1.0.0 (protocol qchat/1; ngtcp2 0.12.1, GnuTLS 3.7.9)`; a tool
    /// that speaks no qchat (the UDP proxy) names neither protocol nor libraries.
    public static func line(program: String, libraries: [(name: String, version: String)], speaksProtocol: Bool = true) -> String {
        var details = speaksProtocol ? ["protocol \(protocolName)"] : []
        let used = libraries.map { "\($0.name) \($0.version)" }.joined(separator: ", ")
        if !used.isEmpty { details.append(used) }
        return "\(program) \(release)" + (details.isEmpty ? "" : " (\(details.joined(separator: "; ")))")
    }
}
