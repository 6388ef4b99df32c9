import ChatServerCore
import Dispatch
import Glibc
import PasswordHashing
import QuicIO

/// Runs the core's password tasks (argon2id, tens of milliseconds each) on a small fixed set of
/// worker threads, so a hash never stalls the event loop for the other clients, and hands each
/// outcome back to the loop through its channel. The core hands over at most one task per thread
/// at a time (``ChatServerConfiguration/passwordTasksRunning``) and keeps the rest in its own
/// queue, in the order it decides (logins first, each key in turn); each task goes to an idle
/// thread, so none waits here behind another.
final class PasswordWorkers {
    struct Result: Sendable {
        let ticket: UInt64
        let outcome: PasswordOutcome
        /// The thread that ran it (none: the loop).
        fileprivate var worker: Int?
        /// A hash the operator console asked for (``hashForConsole(_:then:)``), not the core.
        fileprivate var forConsole = false
    }

    /// Empty with `--password-workers 0`: every task then runs on the loop thread itself, to
    /// measure what that would cost the other clients (docs/PERFORMANCE.md), never to serve.
    private let queues: [DispatchQueue]
    private let results: LoopChannel<Result>
    private let hasher: Argon2id
    /// What a `decoy` task checks against: a hash made here with the hasher's parameters (of a
    /// random password nobody knows), so it costs what checking a real account's hash costs.
    private let decoyHash: String
    /// Tasks each thread has and has not answered (loop thread only).
    private var busy: [Int]
    /// What to do with the console's hashes, by their own tickets (loop thread only).
    private var consoleWaiters: [UInt64: (PasswordOutcome) -> Void] = [:]
    private var nextConsoleTicket: UInt64 = 0

    /// `deliver` runs on the loop thread with each result.
    init(loop: EventLoop, threads: Int, hasher: Argon2id = .standard, deliver: @escaping (Result) -> Void) {
        // Serial queues, one thread each: `threads` hashes at most run at once, each with its
        // argon2 memory (19 MiB at the standard parameters).
        queues = (0..<max(0, threads)).map { DispatchQueue(label: "qchat.password.\($0)", qos: .utility) }
        busy = Array(repeating: 0, count: max(0, threads))
        weak var workers: PasswordWorkers?
        results = loop.makeChannel { result in
            if let worker = result.worker { workers?.busy[worker] -= 1 }
            if result.forConsole {
                workers?.consoleWaiters.removeValue(forKey: result.ticket)?(result.outcome)
            } else {
                deliver(result)
            }
        }
        self.hasher = hasher
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<4).map { _ in String(generator.next(), radix: 36) }.joined()
        decoyHash = (try? hasher.hash(secret)) ?? ""
        workers = self
    }

    /// Runs a task of the core on the idlest thread.
    func run(_ task: PasswordTask) {
        run(task, forConsole: false)
    }

    /// Hashes a password the operator typed on the console (`register NAME`); `then` runs on the
    /// loop with the outcome. Off the loop like every hash; rare, so outside the core's turns.
    func hashForConsole(_ password: String, then: @escaping (PasswordOutcome) -> Void) {
        nextConsoleTicket += 1
        consoleWaiters[nextConsoleTicket] = then
        run(PasswordTask(ticket: nextConsoleTicket, password: password, work: .hash), forConsole: true)
    }

    private func run(_ task: PasswordTask, forConsole: Bool) {
        guard !queues.isEmpty else {
            // On the loop (measurement only): the result still comes back through the channel.
            return results.send(Result(ticket: task.ticket, outcome: Self.outcome(of: task, hasher: hasher, decoyHash: decoyHash),
                                       forConsole: forConsole))
        }
        let worker = busy.indices.min { busy[$0] < busy[$1] } ?? 0
        busy[worker] += 1
        queues[worker].async { [results, hasher, decoyHash] in
            LoopYield.onThisThread()
            results.send(Result(ticket: task.ticket, outcome: Self.outcome(of: task, hasher: hasher, decoyHash: decoyHash),
                                worker: worker, forConsole: forConsole))
        }
    }

    private static func outcome(of task: PasswordTask, hasher: Argon2id, decoyHash: String) -> PasswordOutcome {
        do {
            switch task.work {
            case .hash: return .hashed(try hasher.hash(task.password))
            case .verify(let storedHash): return .verified(try Argon2id.verify(task.password, against: storedHash))
            case .decoy:
                // Whatever it says, no account was checked.
                _ = try Argon2id.verify(task.password, against: decoyHash)
                return .verified(false)
            }
        } catch {
            return .failed(error.description)
        }
    }
}
