import ChatClientKit
import ChatProtocol
import Glibc
import QuicEngine

/// `upload` and `download` (PROTOCOL.md section 9): each blocks the bot until its transfer ends;
/// a failure fails the run.
extension ScriptBot {
    func upload(path: String?, randomBytes: Int64?, to recipient: String?, line: Int) {
        do {
            let source = try path ?? Self.randomFile(randomBytes ?? 0)
            let known = path.flatMap { knownDigest(of: $0) }
            let number = try files.upload(source, room: recipient == nil ? currentRoom : nil, to: recipient, sha256: known)
            // A random file is read through the descriptor the upload holds: its name can go now.
            if path == nil { unlink(source) }
            waitForTransfer(number, line: line)
        } catch {
            runner.fail(ScriptFailure(line: line, bot: definition.name, message: "cannot upload: \(error)"))
        }
    }

    /// The SHA-256 an earlier upload of `path` computed, if the file has not changed since.
    private func knownDigest(of path: String) -> String? {
        guard let known = uploadDigests[path], Self.stamp(of: path) == known.stamp else { return nil }
        return known.sha256
    }

    private static func stamp(of path: String) -> FileStamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileStamp(size: Int64(status.st_size), modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
    }

    func download(into folder: String?, line: Int) {
        guard let shared = lastSharedFile else {
            return runner.fail(ScriptFailure(line: line, bot: definition.name, message: "no file was shared with it to download"))
        }
        do {
            let target = try folder ?? Self.temporaryFolder()
            waitForTransfer(try files.download(shared, into: target), line: line)
        } catch {
            runner.fail(ScriptFailure(line: line, bot: definition.name, message: "cannot download: \(error)"))
        }
    }

    private func waitForTransfer(_ number: Int, line: Int) {
        block(.transferring(number), line: line, milliseconds: Self.transferTimeoutMilliseconds) { [unowned self] in
            runner.fail(ScriptFailure(line: line, bot: definition.name,
                                      message: "transfer not done within \(DurationRange.format(Self.transferTimeoutMilliseconds))"))
        }
    }

    func transferred(_ event: FileTransfers.Event) {
        switch event {
        case .progress, .resumed, .restored, .abandoned, .hashed:
            return
        case .finished(let transfer, _):
            if case .download(_, let destination) = transfer.direction { runner.note("\(definition.name): saved \(destination)") }
            if case .upload(let path, _, _) = transfer.direction {
                runner.note("\(definition.name): uploaded \(transfer.name), \(Self.rateText(transfer))")
                if let stamp = transfer.source, !transfer.sha256.isEmpty { uploadDigests[path] = (stamp, transfer.sha256) }
            }
            if case .transferring(let number) = blocker, number == transfer.number { unblock() }
        case .cancelled(let transfer):
            runner.fail(ScriptFailure(line: blockerLine, bot: definition.name, message: "transfer of \(transfer.name) cancelled"))
        case .failed(let transfer, let reason):
            runner.fail(ScriptFailure(line: blockerLine, bot: definition.name, message: "transfer of \(transfer.name) failed: \(reason)"))
        }
    }

    /// `1073741824 bytes in 5.21 s, 196.5 MiB/s`: from the start of the transfer (after the
    /// local file was hashed) to the server's ack; what `scripts/bench-files.sh` reads.
    static func rateText(_ transfer: FileTransfer, now: MonotonicTime = .now()) -> String {
        let seconds = Double((now - transfer.started).nanoseconds) / 1e9
        let rate = seconds > 0 ? Double(transfer.size) / seconds / 1_048_576 : 0
        return "\(transfer.size) bytes in \((seconds * 100).rounded() / 100) s, \((rate * 10).rounded() / 10) MiB/s"
    }

    /// A file of `size` random bytes (from /dev/urandom) in the temporary folder, a MiB at a time.
    static func randomFile(_ size: Int64) throws -> String {
        var template = Array((temporaryBase() + "/qchat-bot-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw ScriptFileError("cannot create a temporary file: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(descriptor) }
        let random = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard random >= 0 else { throw ScriptFileError("cannot open /dev/urandom: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(random) }
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var written: Int64 = 0
        while written < size {
            let count = Int(min(1 << 20, size - written))
            guard chunk.withUnsafeMutableBytes({ Glibc.read(random, $0.baseAddress, count) }) == count,
                  chunk.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, count) }) == count else {
                throw ScriptFileError("cannot write a temporary file: \(String(cString: strerror(errno)))")
            }
            written += Int64(count)
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func temporaryFolder() throws -> String {
        var template = Array((temporaryBase() + "/qchat-bot-files-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw ScriptFileError("cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    private static func temporaryBase() -> String { getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp" }
}

struct ScriptFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
