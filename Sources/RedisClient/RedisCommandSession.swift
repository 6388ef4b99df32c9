import EventRuntime

/// What answers a command: its reply (an error reply included) or why none came.
public typealias RedisCompletion = (Result<RedisReply, RedisFailure>) -> Void

/// A ``RedisConnection`` on a ``RedisLink``: completions as tags, the handshake of each new
/// connection, the reply timeout and the idle PING, and durable writes confirmed by replicas
/// (``RedisReplicaWait``).
final class RedisCommandSession: RedisLinkSession {
    struct Pending {
        let completion: RedisCompletion?
        let sentAt: MonotonicTime
    }

    let connection: RedisConnection<Pending>
    private let settings: RedisConnectionSettings
    /// Sent first on every new connection (SELECT); a refusal ends the connection.
    private let handshake: [RedisCommand]
    /// nil when durable writes need no replica (`replicasToWaitFor` 0).
    private let replicaWait: RedisReplicaWait?
    weak var link: RedisLink?
    /// Asks the owner to flush `link` at the end of this loop round.
    var markDirty: (RedisLink) -> Void = { _ in }

    init(settings: RedisConnectionSettings, handshake: [RedisCommand]) {
        self.settings = settings
        self.handshake = handshake
        connection = RedisConnection(limits: settings.limits)
        replicaWait = settings.replicasToWaitFor > 0
            ? RedisReplicaWait(replicas: settings.replicasToWaitFor, timeout: settings.replicationTimeout) : nil
    }

    /// Queues `command`, a write answered only once enough replicas have it (or a plain one when
    /// no replica is required).
    func send(_ command: RedisCommand, durable: Bool, _ completion: @escaping RedisCompletion) {
        guard durable, let replicaWait else { return send(command, completion) }
        let write = RedisReplicaWait.Write(completion)
        send(command) { write.replied($0) }
        // Refused before it was queued (not connected, a limit): already answered.
        guard !write.isAnswered else { return }
        replicaWait.add(write)
    }

    /// Queues `command`, or answers at once with why it cannot be sent.
    func send(_ command: RedisCommand, _ completion: RedisCompletion?) {
        guard let link, link.acceptsCommands else {
            completion?(.failure(.unavailable("not connected to \(link?.address.description ?? "Redis")")))
            return
        }
        if let failure = connection.send(command, tag: Pending(completion: completion, sentAt: .now())) {
            completion?(.failure(failure))
            return
        }
        if !link.isDirty {
            link.isDirty = true
            markDirty(link)
        }
    }

    func linkOpened() {
        for command in handshake {
            send(command) { [weak self] result in
                guard let self, let link else { return }
                if case .success(.error(let text)) = result {
                    link.drop(.protocolViolation("\(command.name) refused: \(text)"))
                }
            }
        }
    }

    func linkReceived(_ bytes: UnsafeRawBufferPointer) -> RedisFailure? {
        connection.receive(bytes) { pending, reply in pending.completion?(.success(reply)) }
    }

    var linkHasOutbound: Bool { !connection.outbound.isEmpty || replicaWait?.isDue == true }

    func linkWrite(_ body: (UnsafeRawBufferPointer) throws -> Int) throws {
        // The writes of this round, and those sent while the last WAIT was out, get theirs now.
        if let replicaWait, let (command, group) = replicaWait.nextWait() {
            if let failure = connection.send(command, tag: Pending(completion: { replicaWait.answered(group, $0) }, sentAt: .now())) {
                replicaWait.answered(group, .failure(failure))
            }
        }
        try connection.writeOutbound(body)
    }

    func linkLost(_ failure: RedisFailure) {
        for pending in connection.reset() { pending.completion?(.failure(failure)) }
        replicaWait?.lost(failure)
    }

    func linkCheck(now: MonotonicTime) -> RedisFailure? {
        if let oldest = connection.oldestPending {
            if now - oldest.sentAt > settings.replyTimeout {
                return .connectionLost("no reply for \(settings.replyTimeout.seconds) s")
            }
            return nil
        }
        send(RedisCommand("PING"), nil)
        return nil
    }
}
