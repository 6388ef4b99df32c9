import ChatProtocol
import Foundation
import Testing
import TestSupport

/// The server's worker threads (password hashing, file work) run at the lowest weight of Linux's
/// fair scheduler, SCHED_BATCH at nice 19, never in SCHED_IDLE: an idle-class thread gets no CPU
/// while anything else on the machine wants it, so on a loaded host a registration waited as long
/// as the load lasted (an end-to-end test timed out on a loaded CI machine), and an unprivileged
/// process cannot take a thread out of that class again (docs/RELIABILITY.md, "Worker priority").
@Suite struct WorkerPriorityTests {
    /// Policy and nice value of each thread of a process, from `/proc/PID/task/TID/stat` (fields
    /// 41 and 19, counted after the command name, which may hold spaces).
    static func threadScheduling(of pid: Int32) -> [(policy: Int, nice: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { tid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // Fields from the third (state) on.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 38, let nice = Int(fields[16]), let policy = Int(fields[38]) else { return nil }
            return (policy, nice)
        }
    }

    /// After a registration has hashed its password, the thread that hashed it is SCHED_BATCH (3)
    /// at nice 19, and no thread of the server is SCHED_IDLE (5).
    @Test func passwordWorkerIsBatchAtNiceNineteen() async throws {
        let outcome = try await scenario { world, server in
            let alice = try AccountsEndToEndTests.connect(world, "alice")
            let answer = AccountsEndToEndTests.request(world, alice, .register(password: "a password of alice"), answer: "account")
            return (answer?.text, Self.threadScheduling(of: server.process.processIdentifier))
        }
        #expect(outcome.0 == "registered")
        let threads = outcome.1
        #expect(!threads.isEmpty)
        #expect(threads.contains { $0.policy == 3 && $0.nice == 19 }, "\(threads)")
        #expect(!threads.contains { $0.policy == 5 }, "\(threads)")
    }
}
