/// The password tasks the core has taken on and not finished, owned in one place: each task's
/// record, the queue of those waiting for a worker (``PasswordQueue``), how many the glue is
/// running, and the tickets. It decides turns and keeps the counts; ``ChatServerState`` answers
/// the clients (`rate-limited`, verdicts) around it.
///
/// A task is taken on (counted against the queue's limit), then waits for its turn, then runs
/// with the glue until its result comes back; a task of a client that has gone is dropped unless
/// it is running: work the glue has still occupies a worker until it answers.
struct PasswordTasks {
    /// What ``take(_:password:purpose:client:lane:key:limit:)`` did.
    enum Taken {
        /// The task has this ticket; `displaced` is the waiting task whose place it took (the
        /// queue was full), already forgotten, for its client to be told.
        case taken(UInt64, displaced: PendingPasswordTask?)
        /// The queue is full and no waiting task may be displaced (``PasswordQueue/displaceable(by:key:)``).
        case refused
    }

    private var tasks: [UInt64: PendingPasswordTask] = [:]
    private var queue = PasswordQueue()
    /// Tasks handed to the glue and not answered.
    private(set) var running = 0
    private var lastTicket: UInt64 = 0

    /// Tasks taken on and not finished: waiting to be counted, waiting for a worker, or running.
    var count: Int { tasks.count }
    /// Tasks waiting for a worker.
    var waiting: Int { queue.count }

    subscript(ticket: UInt64) -> PendingPasswordTask? { tasks[ticket] }

    /// Takes a task on unless `limit` are: then it takes the place of a waiting one if the queue
    /// names one, else it is refused.
    mutating func take(_ work: PasswordTask.Work, password: String, purpose: PendingPasswordTask.Purpose, client: ClientID,
                       lane: PasswordQueue.Lane, key: String, limit: Int) -> Taken {
        var displaced: PendingPasswordTask?
        if tasks.count >= limit {
            guard let victim = queue.displaceable(by: lane, key: key), let task = tasks[victim.ticket] else { return .refused }
            queue.remove(victim.ticket, lane: victim.lane, key: victim.key)
            tasks[victim.ticket] = nil
            displaced = task
        }
        lastTicket += 1
        tasks[lastTicket] = PendingPasswordTask(client: client, purpose: purpose,
                                                task: PasswordTask(ticket: lastTicket, password: password, work: work), lane: lane, key: key)
        return .taken(lastTicket, displaced: displaced)
    }

    /// The login attempt a task counts, and whether it is counted (reserved) yet.
    mutating func setAttempt(_ attempt: LoginAttempt, of ticket: UInt64, reserved: Bool) {
        tasks[ticket]?.attempt = attempt
        tasks[ticket]?.isReserved = reserved
    }

    /// A task ready to be hashed waits for its turn.
    mutating func enqueue(_ ticket: UInt64) {
        guard let task = tasks[ticket], !task.isWaiting, !task.isRunning else { return }
        tasks[ticket]?.isWaiting = true
        queue.append(ticket, lane: task.lane, key: task.key)
    }

    /// The next task to hand to the glue while fewer than `maxRunning` run; it runs from now.
    mutating func nextToRun(maxRunning: Int) -> PasswordTask? {
        while running < maxRunning, let ticket = queue.next() {
            guard let task = tasks[ticket] else { continue }
            tasks[ticket]?.isWaiting = false
            tasks[ticket]?.isRunning = true
            running += 1
            return task.task
        }
        return nil
    }

    /// A running task's result came: the task is done and its worker free. Nil for a ticket
    /// that is not running.
    mutating func finish(_ ticket: UInt64) -> PendingPasswordTask? {
        guard let task = tasks[ticket], task.isRunning else { return nil }
        tasks[ticket] = nil
        running -= 1
        return task
    }

    /// Forgets a task that is not running (its client went, or its attempt could not be
    /// counted), out of the queue if it waited there. Nil when there is none or it runs.
    mutating func drop(_ ticket: UInt64) -> PendingPasswordTask? {
        guard let task = tasks[ticket], !task.isRunning else { return nil }
        tasks[ticket] = nil
        if task.isWaiting { queue.remove(ticket, lane: task.lane, key: task.key) }
        return task
    }
}
