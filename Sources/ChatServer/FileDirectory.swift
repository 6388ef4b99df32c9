import ChatServerCore
import Glibc
import QuicIO

/// The server's file folder (`--files`): `content/` holds stored files named by their SHA-256
/// (the same bytes once), `partial/` the uploads in progress named by their random keys. Names
/// from the network never become paths. Used by the file worker's thread only: every call may
/// block on the disk.
struct FileDirectory: Sendable {
    let path: String
    /// A folder this process made (no `--db`) and removes at exit.
    let isTemporary: Bool

    /// An errno with what was being done, for the log.
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        let what: String
        var description: String { "\(what): \(String(cString: strerror(code)))" }
        /// Another writer holds the file (``openPartial(_:fresh:)``).
        var isBusy: Bool { code == EWOULDBLOCK }
    }

    /// Creates the folder and its two subfolders as needed.
    init(path: String, isTemporary: Bool = false) throws(Failure) {
        self.path = path
        self.isTemporary = isTemporary
        for folder in [path, path + "/content", path + "/partial"] where mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw Failure(code: errno, what: "creating \(folder)")
        }
    }

    /// A fresh folder under the system's temporary directory, for a server without `--db`.
    static func temporary() throws(Failure) -> FileDirectory {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/qchat-files-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw Failure(code: errno, what: "creating a temporary file folder") }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return try FileDirectory(path: path, isTemporary: true)
    }

    func contentPath(_ sha256: String) -> String { path + "/content/" + sha256 }
    func partialPath(_ key: String) -> String { path + "/partial/" + key }

    func path(of bytes: FileBytes) -> String {
        switch bytes {
        case .content(let sha256): contentPath(sha256)
        case .partial(let key): partialPath(key)
        }
    }

    /// Opens a partial file for appending, holding its lock (`flock`, exclusive) for as long as
    /// it stays open, so that no two writers ever append to one upload: nodes sharing the folder
    /// (an interrupted upload's last bytes still being written by one node's worker while its
    /// resume starts on another) as well as two opens in one process. `fresh` empties it first,
    /// under the lock. Throws a ``Failure`` that ``Failure/isBusy`` while another writer has it.
    func openPartial(_ key: String, fresh: Bool) throws(Failure) -> Int32 {
        let descriptor = open(partialPath(key), O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw Failure(code: errno, what: "opening a partial upload") }
        func fail(_ what: String) -> Failure {
            let failure = Failure(code: errno, what: what)
            close(descriptor)
            return failure
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw fail("locking a partial upload") }
        if fresh, ftruncate(descriptor, 0) != 0 { throw fail("emptying a partial upload") }
        return descriptor
    }

    /// The size of a file of the folder now (0 when there is none).
    func size(of bytes: FileBytes) -> Int64 {
        var status = stat()
        return stat(path(of: bytes), &status) == 0 ? Int64(status.st_size) : 0
    }

    func openForReading(_ bytes: FileBytes) -> Int32? {
        let descriptor = open(path(of: bytes), O_RDONLY | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }

    /// The size of an open file.
    static func size(of descriptor: Int32) -> Int64 {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Writes all of `bytes`.
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(Failure) {
        if case .failure(let error) = FileDescriptorIO.write(bytes, to: descriptor) {
            throw Failure(code: error.code, what: "writing an upload")
        }
    }

    /// Up to `count` bytes from `offset`; fewer only at the end of the file.
    static func read(_ descriptor: Int32, at offset: Int64, count: Int) throws(Failure) -> [UInt8] {
        switch FileDescriptorIO.read(descriptor, at: offset, count: count) {
        case .success(let bytes): return bytes
        case .failure(let error): throw Failure(code: error.code, what: "reading a stored file")
        }
    }

    /// Makes a complete partial file stored content: renamed into `content/` after reaching the
    /// disk, or dropped when the same bytes are already there.
    func promote(_ key: String, descriptor: Int32, to sha256: String) throws(Failure) {
        let target = contentPath(sha256)
        if access(target, F_OK) == 0 {
            unlink(partialPath(key))
            return
        }
        guard fsync(descriptor) == 0 else { throw Failure(code: errno, what: "syncing an upload") }
        guard rename(partialPath(key), target) == 0 else { throw Failure(code: errno, what: "storing an upload") }
    }

    func remove(_ bytes: FileBytes) {
        unlink(path(of: bytes))
    }

    /// Removes a temporary folder with everything in it (two levels: the folder's own layout).
    func removeIfTemporary() {
        guard isTemporary else { return }
        for folder in [path + "/content", path + "/partial"] {
            for name in Self.fileNames(in: folder) { unlink(folder + "/" + name) }
            rmdir(folder)
        }
        rmdir(path)
    }

    /// The file that names this folder (`--cluster`: the nodes check that they share one folder).
    static let markName = ".qchat-folder"

    /// This folder's mark: 32 random hex digits in `.qchat-folder`, made on first use. Written
    /// aside and linked into place, so nodes starting at once on one folder all read one mark.
    func mark() throws(Failure) -> String {
        let markPath = path + "/" + Self.markName
        if let existing = Self.readMark(markPath) { return existing }
        var random = SystemRandomNumberGenerator()
        let aside = markPath + "." + RandomPeerID.hexKey(using: &random)
        let descriptor = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure(code: errno, what: "making the folder's mark") }
        let written = Array((RandomPeerID.hexKey(using: &random) + "\n").utf8).withUnsafeBytes { FileDescriptorIO.write($0, to: descriptor) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        defer { unlink(aside) }
        guard case .success = written, synced else { throw Failure(code: EIO, what: "writing the folder's mark") }
        guard link(aside, markPath) == 0 || errno == EEXIST else { throw Failure(code: errno, what: "placing the folder's mark") }
        guard let placed = Self.readMark(markPath) else { throw Failure(code: EINVAL, what: "reading the folder's mark \(markPath)") }
        return placed
    }

    /// The mark in `file`: its first line, 32 lowercase hex digits; nil when there is none.
    private static func readMark(_ file: String) -> String? {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard case .success(let bytes) = FileDescriptorIO.read(descriptor, at: 0, count: 64) else { return nil }
        let line = String(decoding: bytes.prefix { $0 != 10 }, as: UTF8.self)
        return line.utf8.count == 32 && line.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) ? line : nil
    }

    /// The names of the files in `content/` and in `partial/`, for the sweep at start.
    func storedNames() -> (content: [String], partials: [String]) {
        (Self.fileNames(in: path + "/content"), Self.fileNames(in: path + "/partial"))
    }

    /// The entries of a folder but `.` and `..`; none when it cannot be read.
    private static func fileNames(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
