import CLIOptions
import ChatClientKit
import Glibc
import QuicEngine

/// Trust on first use of the server chat-client connects to, like ssh's known_hosts
/// (PROTOCOL.md section 11): without a CA named, a server whose certificate no CA found by
/// default signs is checked against `$XDG_CONFIG_HOME/qchat/known_servers`. A listed server must
/// present the very certificate listed; an unlisted one is asked about once (or taken, with
/// `--trust-on-first-use`) and then listed. The fingerprint the server advertised on the local
/// network, when it was discovered, is shown and compared.
struct ServerTrust {
    let host: String
    let port: UInt16
    let path: String
    let known: KnownServers
    /// `fp` of the discovered service, as advertised (nil when connecting by --host).
    let advertised: String?

    /// Reads known_servers; a damaged file is an error, never an empty list.
    init(options: ClientOptions) throws {
        host = options.host
        port = options.port
        path = options.paths.knownServersFile
        advertised = options.advertisedFingerprint
        switch TextFile.read(path, byteLimit: KnownServers.byteLimit) {
        case .success(let text):
            do {
                known = try KnownServers(text: text, name: path)
            } catch {
                throw UsageError("\(error)")
            }
        case .failure(.system(ENOENT)):
            known = KnownServers()
        case .failure(let failure):
            throw UsageError("cannot read \(path): \(failure.text) (no server is trusted from a file that cannot be read)")
        }
    }

    var entry: KnownServers.Entry? { known.entry(host: host, port: port) }

    /// The engine's policy for this server.
    func policy(_ options: ClientOptions) -> ServerCertificatePolicy {
        if options.caRequired { return .certificateAuthority }
        if let entry { return .pinned(entry.fingerprint) }
        return .firstUse
    }

    var server: String { "\(host):\(port)" }

    /// How the advertised fingerprint compares with the presented one.
    enum Advertisement: Equatable {
        case none
        case matches
        case differs(String)
    }

    func advertisement(comparedWith presented: String) -> Advertisement {
        guard let advertised else { return .none }
        return KnownServers.fingerprint(advertised) == presented ? .matches : .differs(advertised)
    }

    /// The question, line by line; the answer is `yes` to trust.
    func question(for presented: String) -> [String] {
        var lines = ["The server \(server) is not known, and no CA you trust signed its certificate.",
                     "Its certificate's SHA-256 fingerprint is sha256:\(presented)"]
        switch advertisement(comparedWith: presented) {
        case .none: break
        case .matches: lines.append("It matches the fingerprint the server advertised on the local network.")
        case .differs(let other):
            lines.append("WARNING: the server advertised \(other) on the local network, not this one: someone may be in between.")
        }
        lines.append("Compare it with the one its operator gives (chat-server --print-fingerprint).")
        lines.append("Trust it and connect? Type yes to trust it (it is kept in \(path)), anything else to give up.")
        return lines
    }

    /// Adds the server to known_servers (the directory 0700, the file 0600); returns its line.
    func remember(_ fingerprint: String) throws -> Int {
        if let slash = path.lastIndex(of: "/") { ClientPaths.makeDirectory(String(path[..<slash])) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var lines = known.lineCount
        var text = ""
        if lines == 0 {
            text = KnownServers.header
            lines = 2
        }
        text += KnownServers.line(host: host, port: port, fingerprint: fingerprint)
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else { throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))") }
        return lines + 1
    }

    /// The refusal of a certificate that is not the one listed: loud, both fingerprints, the file
    /// and line to edit, and no way to go on.
    func changedMessage(pinned: String, presented: String) -> String {
        let line = entry.map { "line \($0.line) of " } ?? ""
        return """
            chat-client: WARNING: THE CERTIFICATE OF \(server) HAS CHANGED. Not connecting.
              known:     sha256:\(pinned) (\(line)\(path))
              presented: sha256:\(presented)
              Someone may be intercepting the connection, or the server has a new certificate.
              If its operator confirms the new fingerprint, delete \(line.isEmpty ? "its line in " : line)\(path) and connect again.
            """
    }

    /// An answer to ``question(for:)``: only `yes` trusts.
    static func isYes(_ answer: String) -> Bool { answer.trimmingWhitespace().lowercased() == "yes" }

    /// Trusts the certificate: lists it in known_servers when the file can be written, and says
    /// what was done (the line, or why it holds for this run only).
    func accept(_ fingerprint: String) -> String {
        do {
            let line = try remember(fingerprint)
            return "trusting \(server) (sha256:\(fingerprint)), kept on line \(line) of \(path)"
        } catch {
            return "trusting \(server) (sha256:\(fingerprint)) for this run only: \(error)"
        }
    }

    /// `--trust-on-first-use`: taken without asking, unless it contradicts what was advertised.
    func refusalWithoutAsking(_ presented: String) -> String? {
        guard case .differs(let other) = advertisement(comparedWith: presented) else { return nil }
        return "not trusting \(server): it presents sha256:\(presented) but advertised \(other) on the local network"
    }
}
