import ChatProtocol

/// The password tasks' turns (``PasswordQueue``): at most `passwordQueueLimit` taken on at once,
/// at most `passwordTasksRunning` with the glue's workers, the rest waiting here, logins first and
/// each key in turn. A request the queue cannot take, or a waiting task a login or a lighter key
/// takes the place of, is answered `rate-limited` and counts as a strike toward FLOODING
/// (PROTOCOL.md section 4's rule: 10 within 10 s close the connection), so that a flood of
/// password requests ends like any other flood (issue 23, finding 8).
extension ChatServerState {
    /// The key whose turn a task takes: the client's address; for a shared (exempt) address,
    /// which many clients use, the account (key) the task is about.
    func passwordQueueKey(of session: ClientSession, account: String) -> String {
        session.address.isEmpty ? "account " + account : "address " + session.address
    }

    /// Takes a task on and makes the connection wait for it; its ticket, or nil when it was
    /// refused (`rate-limited`, a strike). When the queue is full the task takes the place of a
    /// waiting one if ``PasswordQueue/displaceable(by:key:)`` names one, else it is refused.
    func takePasswordTask(_ work: PasswordTask.Work, password: String, purpose: PendingPasswordTask.Purpose, request: ChatMessage,
                          session: ClientSession, lane: PasswordQueue.Lane, key: String, now: Int64,
                          into out: inout [ServerAction]) -> UInt64? {
        switch passwordWork.take(work, password: password, purpose: purpose, client: session.id, lane: lane, key: key,
                                 limit: configuration.passwordQueueLimit) {
        case .refused:
            refuseForBusyQueue(request, session: session, now: now, into: &out)
            return nil
        case .taken(let ticket, let displaced):
            session.awaitedPasswordTask = ticket
            // Only now: what the displaced client sent after its request may take tasks on too,
            // and must find this one counted.
            if let displaced { refuseDisplaced(displaced, now: now, into: &out) }
            return ticket
        }
    }

    /// A task ready to be hashed (counted, for a login) waits for its turn.
    func enqueuePasswordTask(_ ticket: UInt64, into out: inout [ServerAction]) {
        passwordWork.enqueue(ticket)
        dispatchPasswordTasks(into: &out)
    }

    /// Hands waiting tasks to the glue while a worker is free.
    func dispatchPasswordTasks(into out: inout [ServerAction]) {
        while let task = passwordWork.nextToRun(maxRunning: configuration.passwordTasksRunning) { out.append(.password(task)) }
    }

    /// A password task that never reached the glue, of a client that has gone: dropped, and its
    /// counted attempt taken back (nothing was checked). One the glue has still counts until its
    /// result comes.
    func dropPasswordWork(of session: ClientSession, into out: inout [ServerAction]) {
        guard let ticket = session.awaitedPasswordTask, let task = passwordWork.drop(ticket) else { return }
        if let attempt = task.attempt, task.isReserved { releaseAttempt(attempt, into: &out) }
    }

    /// Password tasks waiting for a worker.
    public var waitingPasswordTasks: Int { passwordWork.waiting }

    private func refuseForBusyQueue(_ request: ChatMessage, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        sendError(.rateLimited, "the server is busy checking passwords; try again in a moment", id: request.id, to: session, into: &out)
        strikeForFlooding(session, now: now, into: &out)
    }

    /// A waiting task another took the place of: its client is told `rate-limited` (a strike),
    /// its counted attempt taken back, and what it sent meanwhile is handled.
    private func refuseDisplaced(_ task: PendingPasswordTask, now: Int64, into out: inout [ServerAction]) {
        if let attempt = task.attempt, task.isReserved { releaseAttempt(attempt, into: &out) }
        guard let session = clients[task.client], session.awaitedPasswordTask == task.task.ticket else { return }
        session.awaitedPasswordTask = nil
        refuseForBusyQueue(task.request, session: session, now: now, into: &out)
        releaseHeldMessages(of: session, now: now, into: &out)
    }
}
