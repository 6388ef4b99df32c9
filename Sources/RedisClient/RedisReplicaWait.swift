import EventRuntime

/// Durable writes on one command connection and the `WAIT`s that confirm them (Redis's
/// replication is asynchronous: a master acknowledges a write before any replica has it, and a
/// failover loses what had not reached the promoted replica). A write's reply is held until a
/// `WAIT N TIMEOUT` sent after it on the same connection reports at least N replicas (WAIT
/// covers every earlier write of its connection, so it must be that one), then answered; fewer
/// replicas answer it ``RedisFailure/notReplicated(_:)``.
///
/// Group commit: the writes of a loop round share one WAIT, and one WAIT at a time is in flight;
/// writes sent meanwhile wait for the next, sent when it returns. So a missing replica delays the
/// connection by at most one timeout at a time, and a healthy one costs one WAIT per round, not
/// per write. Error replies (MOVED, NOSCRIPT, a refused script) are answered at once: nothing to
/// confirm, and a redirection must be followed. Loop thread only.
final class RedisReplicaWait {
    /// One durable write: its reply, kept until its WAIT answers.
    final class Write {
        let completion: RedisCompletion
        var reply: RedisReply?
        private(set) var isAnswered = false

        init(_ completion: @escaping RedisCompletion) { self.completion = completion }

        func answer(_ result: Result<RedisReply, RedisFailure>) {
            guard !isAnswered else { return }
            isAnswered = true
            completion(result)
        }

        /// The write's own reply: kept when it is one to confirm, else answered now.
        func replied(_ result: Result<RedisReply, RedisFailure>) {
            if case .success(let reply) = result, reply.errorText == nil {
                self.reply = reply
            } else {
                answer(result)
            }
        }
    }

    let replicas: Int
    let timeout: TimeSpan
    /// Sent, and no WAIT asked for them yet.
    private var unasked: [Write] = []
    private var inFlight = false

    init(replicas: Int, timeout: TimeSpan) {
        self.replicas = replicas
        self.timeout = timeout
    }

    /// A write was queued on the connection (`write.replied` is its completion).
    func add(_ write: Write) { unasked.append(write) }

    /// Writes wait for a WAIT and none is in flight: the next flush sends one.
    var isDue: Bool { !inFlight && !unasked.isEmpty }

    /// The WAIT for every write sent so far, and the writes it covers (to hand to `answered`
    /// with its result); nil when none is due.
    func nextWait() -> (command: RedisCommand, group: [Write])? {
        guard isDue else { return nil }
        let group = unasked
        unasked.removeAll()
        inFlight = true
        return (RedisCommand("WAIT", String(replicas), String(max(1, timeout.nanoseconds / 1_000_000))), group)
    }

    func answered(_ group: [Write], _ result: Result<RedisReply, RedisFailure>) {
        inFlight = false
        let failure: RedisFailure?
        switch result {
        case .success(.integer(let count)) where count >= replicas:
            failure = nil
        case .success(.integer(let count)):
            failure = .notReplicated("\(count) of \(replicas) replicas confirmed within \(Int(timeout.milliseconds)) ms")
        case .success(let other):
            failure = .notReplicated("WAIT answered \(other)")
        case .failure(let lost):
            failure = lost
        }
        for write in group {
            if let failure {
                write.answer(.failure(failure))
            } else if let reply = write.reply {
                write.answer(.success(reply))
            } else {
                // Redis answers in order: a write's reply always comes before its WAIT's.
                write.answer(.failure(.protocolViolation("WAIT answered before the write it covers")))
            }
        }
    }

    /// The connection is gone (after its pending commands were answered): writes that had
    /// their reply but no WAIT yet cannot be confirmed any more.
    func lost(_ failure: RedisFailure) {
        let orphans = unasked
        unasked.removeAll()
        inFlight = false
        for write in orphans { write.answer(.failure(failure)) }
    }
}
