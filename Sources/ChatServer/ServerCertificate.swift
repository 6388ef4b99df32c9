import CLIOptions
import Glibc
import QuicEngine

/// The server's certificate as clients on the local network see it: its SHA-256 fingerprint
/// (advertised in the `fp` TXT key, PROTOCOL.md section 11), and with `--self-signed` the key and
/// certificate the server makes for itself once, in its state directory, and keeps.
enum ServerCertificate {
    /// The fingerprint of the certificate `options` name, making the self-signed one first when
    /// asked for and missing; `created` says whether it was made now.
    static func prepare(_ options: ServerOptions) throws -> (fingerprint: String, created: Bool) {
        if options.selfSigned {
            let existed = access(options.certificate, F_OK) == 0
            do {
                let fingerprint = try TLSIdentity.ensureFile(at: options.certificate, commonName: options.core.serverName,
                                                             purpose: .server, requirePrivate: true)
                return (fingerprint, !existed)
            } catch {
                throw ServerStartError("--self-signed: \(error)")
            }
        }
        return (try fingerprint(ofFile: options.certificate), false)
    }

    /// The SHA-256 of the first certificate of a PEM file (a chain starts with the server's own).
    static func fingerprint(ofFile path: String) throws -> String {
        switch TextFile.read(path, byteLimit: 1 << 20) {
        case .success(let text):
            do {
                return try TLSIdentity.fingerprint(ofPEM: text)
            } catch {
                throw ServerStartError("cannot read the certificate \(path): \(error)")
            }
        case .failure(let failure):
            throw ServerStartError("cannot read the certificate \(path): \(failure.text)")
        }
    }

    /// As clients show and compare it: `sha256:` and 64 lowercase hex digits.
    static func display(_ fingerprint: String) -> String { "sha256:" + fingerprint }
}
