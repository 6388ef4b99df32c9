import Glibc
import QuicEngine

/// chat-client's identity of its own (PROTOCOL.md section 7): a key and a self-signed certificate
/// in one PEM file, made on first start and presented on every connection, so that once the
/// account is registered (which binds it) the person is logged in from then on, as with an SSH key.
enum ClientIdentity {
    /// The identity at `path`, made there first when there is none (the directory 0700, the file
    /// 0600, written whole before it appears under its name). Returns its SHA-256 fingerprint.
    static func ensure(at path: String) throws -> String {
        if let existing = ClientPaths.read(path), existing.contains("CERTIFICATE") {
            return try TLSIdentity.fingerprint(ofPEM: existing)
        }
        if let slash = path.lastIndex(of: "/") { ClientPaths.makeDirectory(String(path[..<slash])) }
        let pem = try TLSIdentity.makeSelfSigned(commonName: "qchat-client")
        let temporary = path + ".new-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw IdentityError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(pem.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        // link, not rename: two clients starting at once keep whichever identity appeared first.
        let linked = written == bytes.count ? link(temporary, path) : -1
        let failure = errno
        unlink(temporary)
        guard linked == 0 else {
            if failure == EEXIST, let existing = ClientPaths.read(path), existing.contains("CERTIFICATE") {
                return try TLSIdentity.fingerprint(ofPEM: existing)
            }
            throw IdentityError("cannot write the identity \(path): \(String(cString: strerror(failure)))")
        }
        return try TLSIdentity.fingerprint(ofPEM: pem)
    }

    struct IdentityError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
