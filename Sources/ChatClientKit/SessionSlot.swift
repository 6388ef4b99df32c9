import ChatProtocol
import Glibc
import QuicIO

/// What a client keeps between runs for one server and nick, so that a client restarted after a
/// crash or a kill is the same peer (PROTOCOL.md section 9 keys interrupted uploads by peer and
/// id): its peer id and the transfers it left unfinished.
///
/// A directory holds up to ``limit`` slots, `slot-N.lock` and `slot-N.state`. A client takes the
/// first slot whose lock file it can `flock`, and holds the lock as long as it runs: a second
/// client running at the same time takes another slot, so another peer id, and never replaces the
/// first (REPLACED); a client that died released its lock with its last descriptor, so the next
/// one takes the slot back, says hello as the same peer (its ghost connection is replaced at once,
/// keeping its nick) and resumes what it left. Files are 0600 in 0700 directories; the state is
/// rewritten whole (a new file renamed over the old one), never half.
public final class SessionSlot {
    public static let limit = 16
    /// Larger states are not read (a line per unfinished transfer).
    public static let byteLimit = 1 << 20

    public let directory: String
    public let index: Int
    public let peer: String
    /// The transfers the last run of this slot left unfinished, as ``FileTransfer/stateLine``s.
    public let unfinished: [Substring]
    /// Why the state file was not used (damaged, unreadable), when it was not.
    public let problem: String?
    private let lock: Int32

    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The directory or a lock file cannot be made or opened.
        case system(String)
        /// Every slot is held by a running client.
        case allTaken(Int)

        public var description: String {
            switch self {
            case .system(let text): text
            case .allTaken(let count): "\(count) clients with this nick already run"
            }
        }
    }

    /// Takes the first free slot in `directory` (made if missing).
    public static func claim(in directory: String, limit: Int = limit) throws(Failure) -> SessionSlot {
        guard PrivateDirectory.make(directory) else { throw .system("cannot make \(directory): \(String(cString: strerror(errno)))") }
        for index in 0..<limit {
            let path = directory + "/slot-\(index).lock"
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw .system("cannot open \(path): \(String(cString: strerror(errno)))") }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return SessionSlot(directory: directory, index: index, lock: descriptor) }
            let code = errno
            close(descriptor)
            guard code == EWOULDBLOCK || code == EINTR else { throw .system("cannot lock \(path): \(String(cString: strerror(code)))") }
        }
        throw .allTaken(limit)
    }

    private init(directory: String, index: Int, lock: Int32) {
        self.directory = directory
        self.index = index
        self.lock = lock
        let statePath = directory + "/slot-\(index).state"
        let read = Self.read(statePath)
        var peer: String?
        var unfinished: [Substring] = []
        var problem = read.problem
        if let text = read.text {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true).filter { !$0.hasPrefix("#") }
            if let first = lines.first, first.hasPrefix("peer "), ChatValidation.isValidPeerID(String(first.dropFirst(5))) {
                peer = String(first.dropFirst(5))
                unfinished = Array(lines.dropFirst())
            } else {
                problem = "\(statePath) is damaged (no peer line): starting it again"
            }
        }
        self.problem = problem
        self.peer = peer ?? ChatSession.randomPeerID()
        self.unfinished = unfinished
        if peer == nil { _ = save([]) }
    }

    deinit { close(lock) }

    public var statePath: String { directory + "/slot-\(index).state" }

    /// Writes the peer id and the transfers not finished (their ``FileTransfer/stateLine``s);
    /// false when the file cannot be written (the client goes on; a later run cannot resume).
    @discardableResult
    public func save(_ transfers: [FileTransfer]) -> Bool {
        var text = "# chat-client's session: its peer id and the transfers it has not finished\npeer \(peer)\n"
        for transfer in transfers.sorted(by: { $0.number < $1.number }) { text += transfer.stateLine + "\n" }
        let temporary = statePath + ".new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { FileDescriptorIO.write($0, to: descriptor) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard case .success = written, synced, rename(temporary, statePath) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    private static func read(_ path: String) -> (text: String?, problem: String?) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return (nil, errno == ENOENT ? nil : "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        switch FileDescriptorIO.read(descriptor, at: 0, count: byteLimit + 1) {
        case .success(let bytes) where bytes.count > byteLimit:
            return (nil, "\(path) is longer than \(byteLimit) bytes: starting it again")
        case .success(let bytes):
            return (String(decoding: bytes, as: UTF8.self), nil)
        case .failure(let error):
            return (nil, "cannot read \(path): \(String(cString: strerror(error.code)))")
        }
    }
}

/// Directories of the person's own files (state, private messages, logs): made with their parents,
/// mode 0700.
public enum PrivateDirectory {
    @discardableResult
    public static func make(_ path: String) -> Bool {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}
