import Glibc
import QuicEngine

/// chat-client's identity of its own (PROTOCOL.md section 7): a key and a self-signed certificate
/// in one PEM file, made on first start and presented on every connection, so that once the
/// account is registered (which binds it) the person is logged in from then on, as with an SSH key.
enum ClientIdentity {
    /// The identity at `path`, made there first when there is none (the directory 0700, the file
    /// 0600, written whole before it appears). Returns its SHA-256 fingerprint.
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
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw IdentityError("cannot write the identity \(path): \(String(cString: strerror(errno)))")
        }
        return try TLSIdentity.fingerprint(ofPEM: pem)
    }

    struct IdentityError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
