import ClusterStore
import Dispatch
import Glibc
import QuicIO
import RedisClient
import Synchronization

/// Renews this node's place in the node directory from a thread of its own, on a Redis connection
/// of its own (issue 26, item 4): a renewal never waits behind the event loop's work (a storm of
/// handshakes, a burst of messages) nor behind the commands the loop has pipelined to Redis. It
/// renews only while the loop makes progress (its tick counts up): a loop stuck for the node's
/// timeout stops renewing, and the node is taken for lost, as it should be (it serves nobody).
/// Each answer goes back to the loop (``LoopChannel``): `reaped` and `taken` are the loop's to act on.
final class HeartbeatThread: Sendable {
    private struct Shared {
        /// Where the directory lives: the one Redis, or the master of `{nodes}`'s slot.
        var server: RedisServerAddress?
        /// Renew only while the node is in the directory (not while it joins or after it left).
        var renewing = false
        var stopped = false
    }

    /// A LockedValue, not the standard library's Mutex: ThreadSanitizer cannot see the futex that one locks with.
    private let shared: LockedValue<Shared>
    /// Loop rounds so far (the loop's tick adds one).
    private let progress = Atomic<UInt64>(0)
    private let command: RedisCommand
    private let database: Int
    private let interval: TimeSpan
    private let lifetime: TimeSpan
    private let answers: LoopChannel<Result<NodeDirectory.Heartbeat, RoomStoreError>>

    /// `deliver` runs on the loop with each renewal's answer.
    init(loop: EventLoop, server: RedisServerAddress?, database: Int, renew command: RedisCommand, interval: TimeSpan,
         lifetime: TimeSpan, deliver: @escaping (Result<NodeDirectory.Heartbeat, RoomStoreError>) -> Void) {
        shared = LockedValue(Shared(server: server))
        self.command = command
        self.database = database
        self.interval = interval
        self.lifetime = lifetime
        answers = loop.makeChannel(deliver)
        loop.addTick { [weak self] in
            self?.progress.wrappingAdd(1, ordering: .relaxed)
            return (nil, false)
        }
    }

    /// On a dispatch queue's thread, which it keeps (Foundation's Thread would bring Foundation,
    /// and ICU's data, into the package: PackagingTests.installLaysOutTheExpectedFiles).
    func start() {
        DispatchQueue(label: "qchat-heartbeat").async { [self] in run() }
    }

    /// The server of the directory changed (a Redis Cluster's slot map).
    func use(server: RedisServerAddress?) { shared.withLock { $0.server = server } }

    func setRenewing(_ renewing: Bool) { shared.withLock { $0.renewing = renewing } }

    func stop() { shared.withLock { $0.stopped = true } }

    private func run() {
        var connection: RedisBlockingConnection?
        var seenProgress = progress.load(ordering: .relaxed)
        var progressedAt = MonotonicTime.now()
        var next = MonotonicTime.now() + interval
        while true {
            // Sleeps in short steps so a stop is seen soon.
            while MonotonicTime.now() < next {
                if shared.withLock({ $0.stopped }) { return }
                usleep(UInt32(min(100_000, (next - MonotonicTime.now()).nanoseconds / 1000)))
            }
            next = next + interval
            if MonotonicTime.now() > next { next = MonotonicTime.now() + interval }
            let state = shared.withLock { $0 }
            if state.stopped { return }
            let now = progress.load(ordering: .relaxed)
            if now != seenProgress {
                seenProgress = now
                progressedAt = MonotonicTime.now()
            }
            // A loop that made no progress for the whole timeout serves nobody: no renewal.
            guard state.renewing, let server = state.server, MonotonicTime.now() - progressedAt < lifetime else { continue }
            do {
                if connection?.address != server { connection = try RedisBlockingConnection(address: server, database: database, timeout: interval) }
                let reply = try connection!.call(command)
                answers.send(RoomEventLog.storeResult(.success(reply)).flatMap(NodeDirectory.heartbeat))
            } catch {
                connection = nil
                answers.send(.failure(.unavailable(error.description)))
            }
        }
    }
}
