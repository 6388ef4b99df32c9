import ChatProtocol
import Digest
import Glibc
import QuicIO

/// A session's uploads and downloads on file streams (PROTOCOL.md section 9), numbered for the
/// person, surviving reconnects: on a new connection every unfinished transfer resumes, an
/// upload with `offset` (corrected by the server's `bad-offset`), a download from the bytes
/// already in its `.part` file. Downloads are checked against their SHA-256 before they take
/// their name. Lives on the loop thread; local disk reads and writes are done there, a chunk at
/// a time.
public final class FileTransfers {
    public enum Event: Sendable {
        case progress(FileTransfer)
        /// Starting again on a new stream from `done` bytes (after a reconnect or a `bad-offset`).
        case resumed(FileTransfer)
        /// An upload's `ack`, or a download complete and verified at `destination`.
        case finished(FileTransfer, ack: ChatMessage?)
        case failed(FileTransfer, reason: String)
        /// An upload's file is hashed (``FileTransfer/sha256`` is set): sending starts.
        case hashed(FileTransfer)
        /// Stopped by ``cancel(_:)``.
        case cancelled(FileTransfer)
        /// Taken up from an earlier run (``restore(_:)``), under a new number.
        case restored(FileTransfer)
        /// Left unfinished by an earlier run and not taken up: the file changed or is gone, the
        /// download's name was taken meanwhile. Not a failure of this run.
        case abandoned(FileTransfer, reason: String)
    }

    public var onEvent: (Event) -> Void = { _ in }
    /// The transfers not finished, each time one starts or ends and when a connection is lost:
    /// kept by the client (``SessionSlot``) so that a later run resumes them.
    public var onUnfinishedChanged: ([FileTransfer]) -> Void = { _ in }
    /// Transfers not finished, by number.
    public private(set) var transfers: [Int: FileTransfer] = [:]

    private final class Job {
        var transfer: FileTransfer
        let descriptor: Int32
        var stream: QuicStreamID?
        var reader = FileStreamHeaderReader()
        var headerSeen = false
        /// Download: the hash of what is in the `.part` file.
        var hasher = SHA256()
        /// Upload: the offset the current stream's body starts at.
        var offset: Int64 = 0
        /// Upload resumed from an earlier run: its next header carries `offset` even when it is
        /// 0, so the server says (`bad-offset`) how many bytes it holds.
        var probesOffset = false

        init(_ transfer: FileTransfer, descriptor: Int32) {
            self.transfer = transfer
            self.descriptor = descriptor
        }
    }

    private var jobs: [Int: Job] = [:]
    private var byStream: [QuicStreamID: Int] = [:]
    private var connection: QuicConnection?
    /// The next number for a transfer or a shared file: one counter for both (``SharedFiles``).
    private var nextNumber = 1
    /// The shared files seen, numbered from the same counter as the transfers.
    public private(set) var sharedFiles = SharedFiles()
    /// Progress events at most this often per transfer.
    private var lastProgress: [Int: MonotonicTime] = [:]
    static let chunk = 64 << 10

    /// Uploads being hashed (``FileHasher``): their open file, by number. Listed in ``transfers``
    /// (with an empty `sha256`), started once their digest is in.
    private(set) var hashing: [Int: Int32] = [:]
    private let loop: EventLoop?
    private lazy var hasher: FileHasher? = loop.map { loop in FileHasher(loop: loop) { [unowned self] result in hashed(result) } }

    /// With a loop, files to upload are hashed on a worker thread and the loop goes on meanwhile;
    /// without one (load generators that give the digest), on the caller's thread.
    public init(loop: EventLoop? = nil) {
        self.loop = loop
    }

    // MARK: Starting

    /// Hashes `path` (unless its `sha256` is given: a load generator sending one file many times)
    /// and uploads it to `room` or, with `to`, to one user; returns its number at once. With a
    /// loop the hash is made on the worker (``Event/hashed(_:)`` when it is in) and the upload
    /// starts after it; a file that cannot be opened throws here, one that cannot be read is a
    /// ``Event/failed(_:reason:)`` later.
    @discardableResult
    public func upload(_ path: String, room: String?, to recipient: String?, sha256 known: String? = nil) throws -> Int {
        let descriptor = try LocalFile.openForReading(path)
        let stamp = LocalFile.stamp(descriptor)
        let name = ChatValidation.safeFileName(LocalFile.baseName(path))
        var transfer = FileTransfer(number: nextNumber, direction: .upload(path: path, room: room, to: recipient), name: name,
                                    size: stamp.size, sha256: known ?? "", id: ChatSession.randomPeerID(), started: .now())
        transfer.source = stamp
        if known == nil, let hasher {
            nextNumber += 1
            hashing[transfer.number] = descriptor
            transfers[transfer.number] = transfer
            hasher.hash(descriptor, size: stamp.size, number: transfer.number)
            return transfer.number
        }
        if known == nil {
            let sink = SHA256Sink()
            do {
                try LocalFile.sha256(descriptor, upTo: stamp.size, into: sink)
            } catch {
                close(descriptor)
                throw error
            }
            transfer.sha256 = sink.hex
        }
        return begin(Job(transfer, descriptor: descriptor))
    }

    /// The worker's digest of an upload: it starts; or the file could not be read; or it was
    /// cancelled meanwhile (only its descriptor is left to close).
    private func hashed(_ result: FileHasher.Result) {
        hasher?.received(result.number)
        guard let descriptor = hashing.removeValue(forKey: result.number) else { return }
        guard var transfer = transfers[result.number], let outcome = result.outcome else {
            close(descriptor)
            return
        }
        switch outcome {
        case .success(let digest):
            transfer.sha256 = digest
            onEvent(.hashed(transfer))
            begin(Job(transfer, descriptor: descriptor))
        case .failure(let failure):
            transfers[result.number] = nil
            close(descriptor)
            onEvent(.failed(transfer, reason: failure.description))
        }
    }

    /// Takes up a transfer an earlier run left unfinished (``SessionSlot/unfinished``), under a
    /// new number: an upload whose file is unchanged since it was hashed asks the server how much
    /// it holds and goes on from there; a download goes on from its `.part` file. Nothing starts
    /// (``Event/abandoned(_:reason:)``) when the file changed or is gone, or the download's name
    /// was taken meanwhile.
    public func restore(_ unfinished: FileTransfer) {
        do {
            let job = try take(unfinished)
            onEvent(.restored(job.transfer))
            begin(job)
        } catch {
            onEvent(.abandoned(unfinished, reason: error.description))
        }
    }

    private func take(_ unfinished: FileTransfer) throws(LocalFile.Failure) -> Job {
        var transfer = FileTransfer(number: nextNumber, direction: unfinished.direction, name: unfinished.name, size: unfinished.size,
                                    sha256: unfinished.sha256, id: unfinished.id, started: .now())
        transfer.source = unfinished.source
        let descriptor: Int32
        switch unfinished.direction {
        case .upload(let path, _, _):
            descriptor = try LocalFile.openForReading(path)
            guard LocalFile.stamp(descriptor) == unfinished.source, unfinished.source?.size == unfinished.size else {
                close(descriptor)
                throw LocalFile.Failure("\(path) changed since it was hashed", ESTALE)
            }
            transfer.done = unfinished.done
        case .download(_, let destination):
            guard !LocalFile.exists(destination) else { throw LocalFile.Failure("\(destination) exists now", EEXIST) }
            descriptor = try LocalFile.openForAppending(destination + ".part")
        }
        let job = Job(transfer, descriptor: descriptor)
        job.probesOffset = transfer.isUpload
        return job
    }

    /// The number a shared file (a `file` event) is shown with, given on first sight; its
    /// download has the same number.
    public func number(forShared file: ChatMessage) -> Int {
        sharedFiles.number(for: file, next: &nextNumber)
    }

    /// Downloads a shared file (a `file` event) into `folder`, under a safe name of its own, as
    /// the transfer with the file's number. A file already being downloaded is refused.
    @discardableResult
    public func download(_ announced: ChatMessage, into folder: String) throws -> Int {
        guard let fileID = announced.file, let size = announced.size, let sha256 = announced.sha256 else {
            throw LocalFile.Failure("not a shared file", EINVAL)
        }
        let number = number(forShared: announced)
        guard transfers[number] == nil else { throw Refusal(description: "file \(number) is being downloaded already (/cancel \(number) stops it)") }
        let destination = DownloadName.path(in: folder, for: announced.text, taken: LocalFile.exists)
        let descriptor = try LocalFile.openForAppending(destination + ".part")
        let transfer = FileTransfer(number: number, direction: .download(file: fileID, destination: destination), name: announced.text,
                                    size: size, sha256: sha256, id: fileID, started: .now())
        return begin(Job(transfer, descriptor: descriptor))
    }

    @discardableResult
    private func begin(_ job: Job) -> Int {
        let number = job.transfer.number
        nextNumber = max(nextNumber, number + 1)
        jobs[number] = job
        transfers[number] = job.transfer
        unfinishedChanged()
        if connection != nil { open(job) }
        return number
    }

    private func unfinishedChanged() {
        onUnfinishedChanged(transfers.values.filter { hashing[$0.number] == nil }.sorted { $0.number < $1.number })
    }

    /// Stops a transfer: its stream is reset, a download's `.part` file removed.
    public func cancel(_ number: Int) -> Bool {
        if hashing[number] != nil, let transfer = transfers.removeValue(forKey: number) {
            // The worker stops; its result closes the file.
            hasher?.cancel(number)
            onEvent(.cancelled(transfer))
            return true
        }
        guard let job = jobs[number] else { return false }
        stopStream(of: job)
        finish(job, with: .cancelled(job.transfer))
        return true
    }

    /// Ends a transfer's stream both ways: nothing more is sent or wanted.
    private func stopStream(of job: Job) {
        guard let stream = job.stream, let connection else { return }
        connection.resetStream(stream, errorCode: 0x1)
        connection.stopSending(stream, errorCode: 0x1)
    }

    /// The SHA-256 of a whole local file, as lowercase hex.
    public static func sha256(ofFile path: String) throws -> String {
        let descriptor = try LocalFile.openForReading(path)
        defer { close(descriptor) }
        let hasher = SHA256Sink()
        try LocalFile.sha256(descriptor, upTo: LocalFile.size(descriptor), into: hasher)
        return hasher.hex
    }

    // MARK: Connections

    /// A new connection said hello: every unfinished transfer starts (again) on it.
    public func connected(_ connection: QuicConnection) {
        self.connection = connection
        byStream.removeAll()
        for number in jobs.keys.sorted() { if let job = jobs[number] { job.stream = nil; open(job) } }
    }

    public func connectionLost() {
        connection = nil
        byStream.removeAll()
        for job in jobs.values { job.stream = nil }
        if !jobs.isEmpty { unfinishedChanged() }
    }

    private func open(_ job: Job) {
        guard let connection, let stream = try? connection.openStream(bulk: true) else { return }  // more wait for a stream
        job.stream = stream
        job.reader = FileStreamHeaderReader()
        job.headerSeen = false
        byStream[stream] = job.transfer.number
        var transfer = job.transfer
        switch transfer.direction {
        case .upload(_, let room, let recipient):
            job.offset = transfer.done
            let header = ChatMessage.upload(id: transfer.id, room: recipient == nil ? room : nil, to: recipient, name: transfer.name,
                                            size: transfer.size, sha256: transfer.sha256,
                                            offset: transfer.done > 0 || job.probesOffset ? transfer.done : nil)
            _ = try? connection.write(header.encodedLine(), to: stream, fin: transfer.done == transfer.size)
            job.transfer = transfer
            pump(job)
            transfer = job.transfer
        case .download(let fileID, _):
            // What the `.part` file holds is kept: its hash is read back, the rest asked for.
            transfer.done = LocalFile.size(job.descriptor)
            job.hasher = SHA256()
            if transfer.done > 0, case .download(_, let destination) = transfer.direction,
               let part = try? LocalFile.openForReading(destination + ".part") {
                try? LocalFile.sha256(part, upTo: transfer.done, into: SHA256Sink(job.hasher))
                close(part)
            }
            _ = try? connection.write(ChatMessage.download(file: fileID, offset: transfer.done).encodedLine(), to: stream, fin: true)
        }
        transfer.doneAtStart = transfer.done
        job.transfer = transfer
        transfers[transfer.number] = transfer
        if transfer.done > 0 { onEvent(.resumed(transfer)) }
    }

    // MARK: Stream events

    /// An engine event of a file stream (8, 12, …) of the current connection.
    public func handle(_ event: QuicEvent) {
        switch event {
        case .streamData(let stream, let bytes, let fin):
            connection?.releaseReceiveCredit(stream, count: bytes.count)
            guard let number = byStream[stream], let job = jobs[number] else { return }
            received(bytes, fin: fin, job: job)
        case .streamWritable(let stream):
            if let number = byStream[stream], let job = jobs[number] { pump(job) }
        case .streamReset(let stream, _):
            // The server gave up on the stream: the transfer resumes on the next connection.
            guard let number = byStream.removeValue(forKey: stream), let job = jobs[number] else { return }
            job.stream = nil
        case .streamClosed(let stream):
            byStream[stream] = nil
            openWaiting()
            if isIdle { onIdle() }
        default:
            break
        }
    }

    /// Transfers that found no free stream start as streams close.
    private func openWaiting() {
        for number in jobs.keys.sorted() where jobs[number]?.stream == nil {
            if let job = jobs[number] { open(job) }
        }
    }

    private func received(_ bytes: [UInt8], fin: Bool, job: Job) {
        var body = bytes[...]
        if !job.headerSeen {
            guard case .header(let event, let bodyStart) = job.reader.feed(bytes, fin: fin) else { return }
            job.headerSeen = true
            body = bytes[bodyStart...]
            guard case .message(let answer) = event else { return finish(job, with: .failed(job.transfer, reason: "bad answer")) }
            if handleAnswer(answer, job: job) { return }
            // A download's header must describe the file announced: its size bounds what is written.
            if !job.transfer.isUpload, let size = answer.size, size != job.transfer.size {
                stopStream(of: job)
                return finish(job, with: .failed(job.transfer, reason: "the server's answer gives \(size) bytes, the file was announced "
                                                    + "with \(job.transfer.size)"))
            }
        }
        guard case .download(_, let destination) = job.transfer.direction else { return }
        // Never more than the file announced (a malicious server could send without end).
        guard job.transfer.done + Int64(body.count) <= job.transfer.size else {
            stopStream(of: job)
            return finish(job, with: .failed(job.transfer, reason: "the server sent more than the file's \(job.transfer.size) bytes"))
        }
        if !body.isEmpty {
            do {
                try LocalFile.write(body, to: job.descriptor)
            } catch {
                return finish(job, with: .failed(job.transfer, reason: error.description))
            }
            body.withUnsafeBytes { job.hasher.update($0) }
            job.transfer.done += Int64(body.count)
            report(job)
        }
        guard fin else { return }
        guard job.transfer.done == job.transfer.size, job.hasher.finishHex() == job.transfer.sha256 else {
            unlink(destination + ".part")
            return finish(job, with: .failed(job.transfer, reason: "the bytes do not match the file's SHA-256"))
        }
        fsync(job.descriptor)
        rename(destination + ".part", destination)
        finish(job, with: .finished(job.transfer, ack: nil))
    }

    /// The first line of the server's answer; true when it ended the transfer (or restarted it).
    private func handleAnswer(_ answer: ChatMessage, job: Job) -> Bool {
        switch answer.messageType {
        case .ack:
            // Our own file's announcement, when it comes, shows the upload's number.
            if let file = answer.file { sharedFiles.remember(file, as: job.transfer.number) }
            finish(job, with: .finished(job.transfer, ack: answer))
            return true
        case .error where answer.code == ErrorCode.badOffset.rawValue && job.transfer.isUpload:
            // Start again from what the server holds, on a new stream.
            job.transfer.done = answer.offset ?? 0
            job.probesOffset = false
            if let stream = job.stream { byStream[stream] = nil }
            job.stream = nil
            open(job)
            return true
        case .error:
            finish(job, with: .failed(job.transfer, reason: "\(answer.code ?? "error"): \(answer.text)"))
            return true
        default:
            return false  // a download's `file` header: the body follows
        }
    }

    /// An upload's next bytes, as long as the stream takes them; FIN after the last.
    private func pump(_ job: Job) {
        guard job.transfer.isUpload, let stream = job.stream, let connection else { return }
        while job.transfer.done < job.transfer.size {
            let count = Int(min(Int64(Self.chunk), job.transfer.size - job.transfer.done))
            guard let piece = try? LocalFile.read(job.descriptor, at: job.transfer.done, count: count) else {
                return finish(job, with: .failed(job.transfer, reason: "cannot read the file"))
            }
            let last = job.transfer.done + Int64(piece.count) == job.transfer.size
            guard let accepted = try? connection.write(piece, to: stream, fin: last) else { return }
            job.transfer.done += Int64(accepted)
            report(job)
            if accepted < piece.count || last { return }
        }
    }

    private func report(_ job: Job) {
        transfers[job.transfer.number] = job.transfer
        let now = MonotonicTime.now()
        if let last = lastProgress[job.transfer.number], now - last < .milliseconds(250) { return }
        lastProgress[job.transfer.number] = now
        onEvent(.progress(job.transfer))
    }

    private func finish(_ job: Job, with event: Event) {
        let number = job.transfer.number
        jobs[number] = nil
        transfers[number] = nil
        lastProgress[number] = nil
        if let stream = job.stream { byStream[stream] = nil }
        close(job.descriptor)
        switch event {
        case .failed, .cancelled:
            if case .download(_, let destination) = job.transfer.direction { unlink(destination + ".part") }
        default:
            break
        }
        unfinishedChanged()
        onEvent(event)
        if isIdle { onIdle() }
    }

    /// No transfer runs, none is being hashed.
    public var isIdle: Bool { jobs.isEmpty && hashing.isEmpty }

    /// After the last transfer ended, and again as its stream closes (the connection then no
    /// longer holds its bytes for retransmission): the moment to give memory back.
    public var onIdle: () -> Void = {}
}

extension FileTransfers {
    /// A transfer refused as asked (not a system error).
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }
}

/// Feeds Digest's SHA256 from ``LocalFile/sha256(_:upTo:into:)``.
final class SHA256Sink: SHA256Feeding {
    let hasher: SHA256

    init(_ hasher: SHA256 = SHA256()) { self.hasher = hasher }

    func feed(_ bytes: [UInt8]) { hasher.update(bytes) }

    var hex: String { hasher.finishHex() }
}
