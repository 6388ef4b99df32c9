import CLIOptions
import ChatClientKit
import Glibc
import QuicEngine

/// Trust on first use of the server chat-client connects to, like ssh's known_hosts
/// (PROTOCOL.md section 11): without a CA named, a server whose certificate no CA found by
/// default signs is checked against `$XDG_CONFIG_HOME/qchat/known_servers`. A listed server must
/// present the very certificate listed; an unlisted one is asked about once (or taken, with
/// `--trust-on-first-use`) and then listed. A server chosen by the name it advertises on the
/// local network (`--server NAME`, `--discover`) is listed under that name too, in
/// `known_names` beside it, and checked by it first: another machine advertising the name with its
/// own certificate, at another address, is refused as a changed certificate, not trusted as a new
/// server (issue 24, defect 18). The names have a file of their own so that known_servers keeps
/// the format every earlier chat-client reads strictly (a line it does not know would make the
/// whole file damaged to it, and every server unusable). What the
/// service advertised as its fingerprint is shown and compared, never taken as a reassurance:
/// whoever answers can advertise any.
final class ServerTrust {
    let path: String
    /// `known_names`: the servers known by their advertised names.
    let namesPath: String
    private(set) var known: KnownServers
    private(set) var knownNames: KnownServers
    /// `fp` of the discovered service, as advertised (nil when connecting by --host or --server
    /// HOST:PORT).
    let advertised: String?
    /// The service name the server was chosen by (`--server NAME`, `--discover`), if it was.
    let advertisedName: String?

    /// Reads known_servers; a damaged file is an error, never an empty list.
    init(options: ClientOptions) throws {
        path = options.paths.knownServersFile
        namesPath = options.paths.knownNamesFile
        advertised = options.advertisedFingerprint
        advertisedName = options.advertisedName
        known = try Self.read(path)
        knownNames = try Self.read(namesPath)
    }

    private static func read(_ path: String) throws -> KnownServers {
        switch TextFile.read(path, byteLimit: KnownServers.byteLimit) {
        case .success(let text):
            do {
                return try KnownServers(text: text, name: path)
            } catch {
                throw UsageError("\(error)")
            }
        case .failure(.system(ENOENT)):
            return KnownServers()
        case .failure(let failure):
            throw UsageError("cannot read \(path): \(failure.text) (no server is trusted from a file that cannot be read)")
        }
    }

    func entry(_ server: ServerSpec) -> KnownServers.Entry? { known.entry(host: server.host, port: server.port) }

    /// The entry that pins the server: the one of its advertised name when it was chosen by name
    /// and that name is known, else the one of its address. Its fingerprint and line.
    func pin(_ server: ServerSpec) -> (fingerprint: String, line: Int)? {
        if let name = advertisedName, let entry = knownNames.entry(name: name) { return (entry.fingerprint, entry.line) }
        return entry(server).map { ($0.fingerprint, $0.line) }
    }

    /// The engine's policy for a server.
    func policy(for server: ServerSpec, _ options: ClientOptions) -> ServerCertificatePolicy {
        if options.caRequired { return .certificateAuthority }
        if let pin = pin(server) { return .pinned(pin.fingerprint) }
        return .firstUse
    }

    /// How the server is named in what the person reads (with the name it was chosen by).
    func name(_ server: ServerSpec) -> String {
        advertisedName.map { "'\(ServerLookup.printable($0))' (\(Self.name(server)))" } ?? Self.name(server)
    }

    static func name(_ server: ServerSpec) -> String { "\(server.host):\(server.port)" }

    /// ` under the name 'NAME'` for a server chosen by its name.
    private var advertisedAs: String { advertisedName.map { " under the name '\(ServerLookup.printable($0))'" } ?? "" }

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
    func question(for presented: String, server: ServerSpec) -> [String] {
        var lines = ["The server \(name(server)) is not known, and no CA you trust signed its certificate.",
                     "Its certificate's SHA-256 fingerprint is sha256:\(presented)"]
        switch advertisement(comparedWith: presented) {
        case .none: break
        case .matches:
            // The advertisement comes from whoever answers on the network: an impostor advertises
            // its own fingerprint, so a match proves nothing.
            lines.append("It is also the fingerprint advertised on the local network, which proves nothing: any machine can advertise any.")
        case .differs(let other):
            lines.append("WARNING: the server advertised \(other) on the local network, not this one: someone may be in between.")
        }
        lines.append("Compare it with the one its operator gives (chat-server --print-fingerprint).")
        lines.append("Trust it and connect? Type yes to trust it (it is kept in \(path)), anything else to give up.")
        return lines
    }

    /// Adds the server to known_servers, and its advertised name to known_names (the directory
    /// 0700, the files 0600); returns its line in known_servers.
    func remember(_ fingerprint: String, for server: ServerSpec) throws -> Int {
        let line = try Self.append(KnownServers.line(host: server.host, port: server.port, fingerprint: fingerprint), to: path,
                                   header: KnownServers.header, after: known.lineCount)
        // Read back, so a second server trusted in this run is numbered right.
        if let again = try? Self.read(path) { known = again }
        if let name = advertisedName, knownNames.entry(name: name) == nil {
            _ = try Self.append(KnownServers.line(name: name, fingerprint: fingerprint), to: namesPath, header: KnownServers.namesHeader,
                                after: knownNames.lineCount)
            if let again = try? Self.read(namesPath) { knownNames = again }
        }
        return line
    }

    /// Appends a line to a file that has `lines` lines (the header first into an empty one),
    /// fsync'd; returns its line number.
    private static func append(_ line: String, to path: String, header: String, after lines: Int) throws -> Int {
        if let slash = path.lastIndex(of: "/") { ClientPaths.makeDirectory(String(path[..<slash])) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let text = (lines == 0 ? header : "") + line
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else { throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))") }
        return (lines == 0 ? header.filter { $0 == "\n" }.count : lines) + 1
    }

    /// The refusal of a certificate that is not the one listed: loud, both fingerprints, the file
    /// and line to edit, and no way to go on.
    func changedMessage(pinned: String, presented: String, server: ServerSpec) -> String {
        // Every line that names the server: its address's and its name's.
        let lines = [entry(server).map { "line \($0.line) of \(path)" },
                     advertisedName.flatMap { knownNames.entry(name: $0) }.map { "line \($0.line) of \(namesPath)" }].compactMap { $0 }
        let listed = lines.isEmpty ? path : lines.joined(separator: " and ")
        return """
            chat-client: WARNING: THE CERTIFICATE OF \(name(server)) HAS CHANGED. Not connecting.
              known:     sha256:\(pinned) (\(listed))
              presented: sha256:\(presented)
              Someone may be intercepting the connection, or the server has a new certificate.
              If its operator confirms the new fingerprint, delete \(lines.isEmpty ? "its line in " + path : listed) and connect again.
            """
    }

    /// An answer to ``question(for:server:)``: only `yes` trusts.
    static func isYes(_ answer: String) -> Bool { answer.trimmingWhitespace().lowercased() == "yes" }

    /// Trusts the certificate: lists it in known_servers when the file can be written, and says
    /// what was done (the line, or why it holds for this run only).
    func accept(_ fingerprint: String, for server: ServerSpec) -> String {
        do {
            let line = try remember(fingerprint, for: server)
            return "trusting \(Self.name(server)) (sha256:\(fingerprint))\(advertisedAs), kept on line \(line) of \(path)"
        } catch {
            return "trusting \(Self.name(server)) (sha256:\(fingerprint))\(advertisedAs) for this run only: \(error)"
        }
    }

    /// `--trust-on-first-use`: taken without asking, unless it contradicts what was advertised.
    func refusalWithoutAsking(_ presented: String, server: ServerSpec) -> String? {
        guard case .differs(let other) = advertisement(comparedWith: presented) else { return nil }
        return "not trusting \(Self.name(server)): it presents sha256:\(presented) but advertised \(other) on the local network"
    }
}
