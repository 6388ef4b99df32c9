import ChatServerCore
import Digest
import Dispatch
import Glibc
import QuicIO

/// Does the disk work of file streams on a thread of its own, so a slow disk never stalls the
/// event loop (PROTOCOL.md section 9): uploads are written and hashed as their bytes arrive,
/// downloads read chunk by chunk, evicted and expired bytes removed. Jobs run in the order the
/// loop queued them (one serial queue), so work on one partial file never overtakes earlier work
/// on it; results come back through the loop's channel. Each job runs at the lowest weight
/// (SCHED_BATCH, nice 19: ``LoopYield``), so on a core shared with the event loop the loop goes
/// first: a transfer slows itself, never chat, and still ends on a busy machine.
///
/// What it holds in memory is bounded by the loop: an upload's bytes in flight are at most its
/// stream's receive window (credit is returned only as `consumed` reports come back), a
/// download's at most one chunk.
final class FileWorker: Sendable {
    enum Report: Sendable {
        /// Bytes of an upload written to disk: the loop gives the client that much credit back.
        case consumed(FileStreamKey, Int)
        case uploadEnded(FileStreamKey, UploadOutcome)
        /// A download's stored bytes are open (all of them there), or `failure` says why not.
        case opened(FileStreamKey, failure: String?)
        /// The next bytes of a download; `failure` when the disk could not give them.
        case read(FileStreamKey, [UInt8], failure: String?)
    }

    /// An upload being written: the partial file, the hash so far, bytes of this stream written.
    /// Unchecked: made, used and dropped on the worker's serial queue only.
    private final class Sink: @unchecked Sendable {
        let job: UploadJob
        let descriptor: Int32
        let hasher = SHA256()
        var written: Int64 = 0

        init(job: UploadJob, descriptor: Int32) {
            self.job = job
            self.descriptor = descriptor
        }
    }

    /// Largest read for a download or a resume's re-hash.
    static let chunkSize = 64 << 10

    let directory: FileDirectory
    /// The free disk uploads leave (``UploadJob/keepFree``).
    let space: DiskSpace
    private let queue = DispatchQueue(label: "qchat.files", qos: .utility)
    private let reports: LoopChannel<Report>
    /// Touched on the worker's queue only; the lock is never contended.
    private let sinks = LockedValue<[FileStreamKey: Sink]>([:])
    private let readers = LockedValue<[FileStreamKey: Int32]>([:])

    init(loop: EventLoop, directory: FileDirectory, space: DiskSpace, deliver: @escaping (Report) -> Void) {
        self.directory = directory
        self.space = space
        reports = loop.makeChannel(deliver)
    }

    func startUpload(_ key: FileStreamKey, _ job: UploadJob) {
        queue.async { [self] in
            LoopYield.onThisThread()
            do {
                guard let descriptor = try openPartialWhenFree(job) else {
                    // Another node still writes the interrupted upload's last bytes: what is
                    // there is not final; the client starts again from it, and is told again
                    // if that was too early.
                    return reports.send(.uploadEnded(key, .badOffset(held: directory.size(of: .partial(job.partialKey)))))
                }
                if job.resumes {
                    let held = FileDirectory.size(of: descriptor)
                    guard held == job.offset else {
                        close(descriptor)
                        return reports.send(.uploadEnded(key, .badOffset(held: held)))
                    }
                }
                // What it will write, with what the uploads under way still will, must leave the reserve.
                let promised = sinks.withLock { $0.values.reduce(Int64(0)) { $0 + $1.job.size - $1.job.offset - $1.written } }
                guard space.leaves(job.keepFree, writing: job.size - job.offset, promised: promised) else {
                    close(descriptor)
                    return reports.send(.uploadEnded(key, .lowOnDisk(held: job.resumes ? job.offset : 0)))
                }
                let sink = Sink(job: job, descriptor: descriptor)
                if job.resumes { try rehash(job.partialKey, upTo: job.offset, into: sink.hasher) }
                sinks.withLock { $0[key] = sink }
            } catch {
                directory.remove(.partial(job.partialKey))
                reports.send(.uploadEnded(key, .failed(reason: "\(error)")))
            }
        }
    }

    /// The partial file of `job`, locked for writing; nil when another writer still held it
    /// after ``lockWaits`` tries ``lockWait`` apart (this thread waits: the other writer is a
    /// node sharing the folder, finishing what it had received).
    private func openPartialWhenFree(_ job: UploadJob) throws(FileDirectory.Failure) -> Int32? {
        for attempt in 0..<Self.lockWaits {
            do {
                return try directory.openPartial(job.partialKey, fresh: !job.resumes)
            } catch where error.isBusy {
                if attempt + 1 < Self.lockWaits { usleep(Self.lockWait) }
            }
        }
        return nil
    }

    /// How often, and how far apart (µs), a start tries a partial file another writer holds.
    static let lockWaits = 50
    static let lockWait: UInt32 = 20_000

    /// The next body bytes of an upload. After a failure they are dropped (the loop already
    /// stopped the stream), their credit still given back.
    func write(_ bytes: [UInt8], to key: FileStreamKey) {
        queue.async { [self] in
            LoopYield.onThisThread()
            defer { reports.send(.consumed(key, bytes.count)) }
            guard let sink = sinks.withLock({ $0[key] }) else { return }
            guard sink.job.offset + sink.written + Int64(bytes.count) <= sink.job.size else {
                return end(key, sink, .tooLong)
            }
            // Others (the database, other programs) may have taken the room this upload had.
            guard space.leaves(sink.job.keepFree, writing: Int64(bytes.count)) else {
                return end(key, sink, .lowOnDisk(held: sink.job.offset + sink.written))
            }
            let failure: FileDirectory.Failure? = bytes.withUnsafeBytes { raw in
                do throws(FileDirectory.Failure) {
                    try FileDirectory.write(raw, to: sink.descriptor)
                } catch {
                    return error
                }
                sink.hasher.update(raw)
                return nil
            }
            if let failure { return end(key, sink, .failed(reason: failure.description)) }
            sink.written += Int64(bytes.count)
        }
    }

    /// FIN: the body is complete, or short.
    func finishUpload(_ key: FileStreamKey) {
        queue.async { [self] in
            LoopYield.onThisThread()
            guard let sink = sinks.withLock({ $0[key] }) else { return }
            let received = sink.job.offset + sink.written
            guard received == sink.job.size else { return end(key, sink, .incomplete(received: received)) }
            guard sink.hasher.finishHex() == sink.job.sha256 else { return end(key, sink, .badChecksum) }
            do {
                try directory.promote(sink.job.partialKey, descriptor: sink.descriptor, to: sink.job.sha256)
                end(key, sink, .stored)
            } catch {
                end(key, sink, .failed(reason: "\(error)"))
            }
        }
    }

    /// The stream was reset or the connection lost: the partial file stays for a resume.
    func interruptUpload(_ key: FileStreamKey) {
        queue.async { [self] in
            LoopYield.onThisThread()
            guard let sink = sinks.withLock({ $0[key] }) else { return }
            end(key, sink, .interrupted(held: sink.job.offset + sink.written))
        }
    }

    /// Another stream took the upload over: close the partial file as it is, report nothing.
    func abandonUpload(_ key: FileStreamKey) {
        queue.async { [self] in
            LoopYield.onThisThread()
            guard let sink = sinks.withLock({ $0.removeValue(forKey: key) }) else { return }
            close(sink.descriptor)
        }
    }

    /// Opens a download's stored bytes before its header goes: a record whose content is missing
    /// or short (a folder restored apart from its database, a node of several on another folder)
    /// is answered with an error instead of a header and then a reset.
    func openDownload(_ sha256: String, size: Int64, for key: FileStreamKey) {
        queue.async { [self] in
            LoopYield.onThisThread()
            guard let descriptor = directory.openForReading(.content(sha256)) else {
                return reports.send(.opened(key, failure: "the stored file is missing"))
            }
            guard FileDirectory.size(of: descriptor) >= size else {
                close(descriptor)
                return reports.send(.opened(key, failure: "the stored file is shorter than its record"))
            }
            readers.withLock { $0[key] = descriptor }
            reports.send(.opened(key, failure: nil))
        }
    }

    /// The next up to `count` bytes of a download from `offset`.
    func read(_ sha256: String, at offset: Int64, count: Int, for key: FileStreamKey) {
        queue.async { [self] in
            LoopYield.onThisThread()
            do {
                var descriptor = readers.withLock { $0[key] }
                if descriptor == nil {
                    guard let opened = directory.openForReading(.content(sha256)) else {
                        return reports.send(.read(key, [], failure: "the stored file is missing"))
                    }
                    readers.withLock { $0[key] = opened }
                    descriptor = opened
                }
                reports.send(.read(key, try FileDirectory.read(descriptor!, at: offset, count: count), failure: nil))
            } catch {
                reports.send(.read(key, [], failure: "\(error)"))
            }
        }
    }

    func finishDownload(_ key: FileStreamKey) {
        queue.async { [self] in
            LoopYield.onThisThread()
            if let descriptor = readers.withLock({ $0.removeValue(forKey: key) }) { close(descriptor) }
        }
    }

    func discard(_ bytes: FileBytes) {
        queue.async { [self] in directory.remove(bytes) }
    }

    /// Waits for the queued work (at shutdown), then removes a temporary folder.
    func drain() {
        queue.sync { [self] in
            for sink in sinks.withLock({ $0.values }) { close(sink.descriptor) }
            directory.removeIfTemporary()
        }
    }

    /// Ends an upload's writing with `outcome`: the partial file stays only when interrupted.
    private func end(_ key: FileStreamKey, _ sink: Sink, _ outcome: UploadOutcome) {
        sinks.withLock { $0[key] = nil }
        close(sink.descriptor)
        switch outcome {
        case .interrupted, .stored, .badOffset, .lowOnDisk: break
        default: directory.remove(.partial(sink.job.partialKey))
        }
        reports.send(.uploadEnded(key, outcome))
    }

    /// Feeds the first `count` bytes of a partial file to `hasher` (a resume continues the hash).
    private func rehash(_ key: String, upTo count: Int64, into hasher: SHA256) throws(FileDirectory.Failure) {
        guard count > 0, let descriptor = directory.openForReading(.partial(key)) else { return }
        defer { close(descriptor) }
        var done: Int64 = 0
        while done < count {
            let chunk = try FileDirectory.read(descriptor, at: done, count: Int(min(Int64(Self.chunkSize) * 16, count - done)))
            guard !chunk.isEmpty else { throw FileDirectory.Failure(code: EIO, what: "re-reading a partial upload") }
            hasher.update(chunk)
            done += Int64(chunk.count)
        }
    }
}
