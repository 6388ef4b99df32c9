import Glibc
import QuicIO

/// The few file operations transfers need, without Foundation. Failures are texts for the person.
enum LocalFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// The errno it ended on.
        let code: Int32

        init(_ what: String, _ code: Int32 = errno) {
            description = "\(what): \(String(cString: strerror(code)))"
            self.code = code
        }
    }

    static func openForReading(_ path: String) throws(Failure) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure("cannot open \(path)") }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw Failure("\(path) is not a regular file", EINVAL)
        }
        return descriptor
    }

    /// Opens `path` for appending, creating it (mode 0600) when missing.
    static func openForAppending(_ path: String) throws(Failure) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure("cannot write \(path)") }
        return descriptor
    }

    static func size(_ descriptor: Int32) -> Int64 {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Size and modification time of an open file.
    static func stamp(_ descriptor: Int32) -> FileStamp {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return FileStamp(size: 0, modified: 0) }
        return FileStamp(size: Int64(status.st_size), modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Up to `count` bytes from `offset`.
    static func read(_ descriptor: Int32, at offset: Int64, count: Int) throws(Failure) -> [UInt8] {
        switch FileDescriptorIO.read(descriptor, at: offset, count: count) {
        case .success(let bytes): return bytes
        case .failure(let error): throw Failure("cannot read", error.code)
        }
    }

    static func write(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) throws(Failure) {
        if case .failure(let error) = bytes.withUnsafeBytes({ FileDescriptorIO.write($0, to: descriptor) }) {
            throw Failure("cannot write", error.code)
        }
    }

    /// The SHA-256 of bytes `0..<count` of an open file, read a megabyte at a time; `stops` is
    /// asked before each megabyte (true: the hash throws `ECANCELED`).
    static func sha256(_ descriptor: Int32, upTo count: Int64, into hasher: SHA256Feeding, stops: () -> Bool = { false }) throws(Failure) {
        var done: Int64 = 0
        while done < count {
            if stops() { throw Failure("hashing stopped", ECANCELED) }
            let chunk = try read(descriptor, at: done, count: Int(min(1 << 20, count - done)))
            guard !chunk.isEmpty else { throw Failure("the file got shorter", EIO) }
            hasher.feed(chunk)
            done += Int64(chunk.count)
        }
    }

    /// The last path component.
    static func baseName(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path))
    }
}

/// Where hashed bytes go (Digest's SHA256 behind it).
protocol SHA256Feeding: AnyObject {
    func feed(_ bytes: [UInt8])
}

extension FileTransfers {
    /// Whether `path` names a regular file that can be opened for reading.
    public static func isReadableFile(_ path: String) -> Bool {
        guard let descriptor = try? LocalFile.openForReading(path) else { return false }
        close(descriptor)
        return true
    }
}
