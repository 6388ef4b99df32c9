import Dispatch
import Glibc
import QuicIO

/// Hashes the files to upload on a thread of its own, so the event loop (the person's typing,
/// chat, other transfers) never waits for a large file's SHA-256: about 0.3 s for 100 MiB,
/// seconds for gigabytes. Files are hashed one at a time, in the order asked; each result comes
/// back to the loop through its channel. The worker only reads the descriptor; the loop keeps it
/// open until the result is in. A cancelled hash stops at its next megabyte.
final class FileHasher: Sendable {
    struct Result: Sendable {
        let number: Int
        /// The digest as lowercase hex, or why the file could not be read (nil when cancelled).
        let outcome: Swift.Result<String, LocalFile.Failure>?
    }

    private let queue = DispatchQueue(label: "qchat.client.hash", qos: .utility)
    private let results: LoopChannel<Result>
    /// Numbers of hashes the loop no longer wants.
    private let cancelled = LockedValue<Set<Int>>([])

    init(loop: EventLoop, deliver: @escaping (Result) -> Void) {
        results = loop.makeChannel(deliver)
    }

    /// Bytes `0..<size` of `descriptor`, for transfer `number`.
    func hash(_ descriptor: Int32, size: Int64, number: Int) {
        queue.async { [self] in
            let sink = SHA256Sink()
            let outcome: Swift.Result<String, LocalFile.Failure>?
            do throws(LocalFile.Failure) {
                try LocalFile.sha256(descriptor, upTo: size, into: sink) { cancelled.withLock { $0.contains(number) } }
                outcome = .success(sink.hex)
            } catch {
                outcome = error.code == ECANCELED ? nil : .failure(error)
            }
            results.send(Result(number: number, outcome: outcome))
        }
    }

    /// The hash of transfer `number` is no longer wanted: the worker stops it (its result still
    /// comes back, with the descriptor to close).
    func cancel(_ number: Int) {
        cancelled.withLock { _ = $0.insert(number) }
    }

    /// The loop has the result of `number`: nothing more to stop.
    func received(_ number: Int) {
        cancelled.withLock { _ = $0.remove(number) }
    }
}
