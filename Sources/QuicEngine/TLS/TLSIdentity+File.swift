import Glibc

/// A self-signed identity kept in a file: made once, then read again on every start.
extension TLSIdentity {
    /// The identity at `path` (key and certificate in one PEM file), made there first when
    /// there is none: the directory 0700, the file 0600, written whole before it appears under
    /// its name (`link`, so two programs starting at once keep whichever appeared first).
    /// Returns the certificate's SHA-256 fingerprint. With `requirePrivate`, an existing file
    /// that others may read or write is refused, as ssh refuses such a key.
    public static func ensureFile(at path: String, commonName: String, purpose: Purpose, requirePrivate: Bool = false) throws -> String {
        if let existing = try readExisting(path, requirePrivate: requirePrivate) { return existing }
        if let slash = path.lastIndex(of: "/") { makeDirectories(String(path[..<slash])) }
        let pem = try makeSelfSigned(commonName: commonName, purpose: purpose)
        let temporary = path + ".new-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw QuicError.system(function: "create \(temporary)", errno: errno, message: String(cString: strerror(errno))) }
        let bytes = Array(pem.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        let linked = written == bytes.count ? link(temporary, path) : -1
        let failure = errno
        unlink(temporary)
        guard linked == 0 else {
            if failure == EEXIST, let existing = try readExisting(path, requirePrivate: requirePrivate) { return existing }
            throw QuicError.system(function: "write \(path)", errno: failure, message: String(cString: strerror(failure)))
        }
        return try fingerprint(ofPEM: pem)
    }

    /// The fingerprint of an identity file already there; nil when there is none (or it holds
    /// no certificate, as a file cut short by a crash before `link` never would).
    private static func readExisting(_ path: String, requirePrivate: Bool) throws -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        if requirePrivate, fstat(descriptor, &status) == 0, status.st_mode & 0o077 != 0 {
            throw QuicError.invalidConfiguration(
                "\(path) holds a private key that others may read (mode \(String(status.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while bytes.count < 1 << 20 {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("CERTIFICATE") else { return nil }
        return try fingerprint(ofPEM: text)
    }

    /// `mkdir -p` with mode 0700 for the parts it makes.
    static func makeDirectories(_ path: String) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            _ = mkdir(current, 0o700)
        }
    }
}
