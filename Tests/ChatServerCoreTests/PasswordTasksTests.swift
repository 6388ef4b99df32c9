import ChatProtocol
@testable import ChatServerCore
import Testing

/// ``PasswordTasks`` on its own: the counts a password task moves through (taken on, waiting,
/// running, finished or dropped) and the places it can be refused or displaced. The protocol
/// around it (`rate-limited`, strikes, verdicts) is `PasswordQueueTests`' and `LoginAttemptTests`'.
@Suite struct PasswordTasksTests {
    static let login = PendingPasswordTask.Purpose.login(request: ChatMessage(.login, id: "l"), account: nil)

    static func take(_ tasks: inout PasswordTasks, client: ClientID = 1, lane: PasswordQueue.Lane = .login, key: String = "a",
                     limit: Int = 8) -> PasswordTasks.Taken {
        tasks.take(.decoy, password: "pw", purpose: login, client: client, lane: lane, key: key, limit: limit)
    }

    static func ticket(_ taken: PasswordTasks.Taken) -> UInt64? {
        if case .taken(let ticket, _) = taken { return ticket }
        return nil
    }

    /// Takes a task on and returns its ticket (the macros cannot hold a mutating call).
    static func taken(_ tasks: inout PasswordTasks, client: ClientID = 1, lane: PasswordQueue.Lane = .login, key: String = "a",
                      limit: Int = 8) throws -> UInt64 {
        let taken = take(&tasks, client: client, lane: lane, key: key, limit: limit)
        return try #require(ticket(taken))
    }

    /// Taken on, enqueued, run, finished: each step moves the counts, and the worker limit holds.
    @Test func aTaskGoesFromTakenToFinished() throws {
        var tasks = PasswordTasks()
        let first = try Self.taken(&tasks)
        let second = try Self.taken(&tasks, client: 2, key: "b")
        #expect(first != second)
        #expect(tasks.count == 2 && tasks.waiting == 0 && tasks.running == 0)
        // Not enqueued yet (a login's attempt is being counted): nothing to run.
        var next = tasks.nextToRun(maxRunning: 1)
        #expect(next == nil)
        tasks.enqueue(first)
        tasks.enqueue(second)
        tasks.enqueue(second)
        #expect(tasks.waiting == 2, "a task enqueued twice waits once")
        next = tasks.nextToRun(maxRunning: 1)
        #expect(next?.ticket == first)
        next = tasks.nextToRun(maxRunning: 1)
        #expect(next == nil, "one worker: the second waits")
        #expect(tasks.running == 1 && tasks.waiting == 1)
        var finished = tasks.finish(second)
        #expect(finished == nil, "a waiting task has no result to take")
        finished = tasks.finish(first)
        #expect(finished?.client == 1)
        finished = tasks.finish(first)
        #expect(finished == nil, "a result comes once")
        next = tasks.nextToRun(maxRunning: 1)
        #expect(next?.ticket == second)
        #expect(tasks.count == 1 && tasks.running == 1 && tasks.waiting == 0)
    }

    /// A task of a client that went is dropped, out of the queue, unless the glue runs it: its
    /// work occupies a worker until its result comes.
    @Test func onlyATaskThatDoesNotRunIsDropped() throws {
        var tasks = PasswordTasks()
        let running = try Self.taken(&tasks)
        let waiting = try Self.taken(&tasks, client: 2)
        tasks.enqueue(running)
        _ = tasks.nextToRun(maxRunning: 1)
        tasks.enqueue(waiting)
        var dropped = tasks.drop(running)
        #expect(dropped == nil)
        dropped = tasks.drop(waiting)
        #expect(dropped?.client == 2)
        #expect(tasks.waiting == 0 && tasks.count == 1)
        let next = tasks.nextToRun(maxRunning: 2)
        #expect(next == nil, "the dropped task left the queue")
        let finished = tasks.finish(running)
        #expect(finished != nil)
        #expect(tasks.count == 0 && tasks.running == 0)
    }

    /// At the limit a newcomer is refused unless the queue names a waiting task to displace: a
    /// login takes the place of a waiting change, and that task is handed back, forgotten.
    @Test func atTheLimitALoginDisplacesAWaitingChange() throws {
        var tasks = PasswordTasks()
        let change = try Self.taken(&tasks, client: 1, lane: .change, key: "a", limit: 2)
        let login = try Self.taken(&tasks, client: 2, lane: .login, key: "b", limit: 2)
        tasks.enqueue(change)
        tasks.enqueue(login)
        let third = Self.take(&tasks, client: 3, lane: .change, key: "c", limit: 2)
        guard case .refused = third else {
            Issue.record("a third change was taken on past the limit"); return
        }
        let fourth = Self.take(&tasks, client: 4, lane: .login, key: "d", limit: 2)
        guard case .taken(let newcomer, let displaced?) = fourth else {
            Issue.record("a login did not displace the waiting change"); return
        }
        #expect(displaced.task.ticket == change && displaced.client == 1)
        #expect(tasks[change] == nil && tasks[newcomer] != nil)
        #expect(tasks.count == 2 && tasks.waiting == 1)
    }

    /// The attempt a login counts is kept with its task.
    @Test func theAttemptStaysWithItsTask() throws {
        var tasks = PasswordTasks()
        let ticket = try Self.taken(&tasks)
        let attempt = LoginAttempt(ticket: ticket, account: "alice", address: "192.0.2.1")
        tasks.setAttempt(attempt, of: ticket, reserved: false)
        #expect(tasks[ticket]?.attempt == attempt && tasks[ticket]?.isReserved == false)
        tasks.setAttempt(attempt, of: ticket, reserved: true)
        #expect(tasks[ticket]?.isReserved == true)
    }
}
