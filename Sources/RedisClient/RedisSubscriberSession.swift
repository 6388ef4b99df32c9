import EventRuntime

/// A ``RedisSubscriber`` on a ``RedisLink``: events to the owner, subscriptions restored on each
/// new connection, a heartbeat PING whose pong must come within the reply timeout.
final class RedisSubscriberSession: RedisLinkSession {
    let subscriber: RedisSubscriber
    private let settings: RedisConnectionSettings
    private var pingSentAt: MonotonicTime?
    weak var link: RedisLink?
    var markDirty: (RedisLink) -> Void = { _ in }
    var onEvent: (RedisSubscriberEvent) -> Void = { _ in }
    /// The connection was lost while these were wanted: messages may be missed until restored.
    var onInterrupted: ([RedisSubscription]) -> Void = { _ in }

    init(settings: RedisConnectionSettings) {
        self.settings = settings
        subscriber = RedisSubscriber(limits: settings.limits)
    }

    func changed() {
        guard let link, subscriber.outbound.count > 0, !link.isDirty else { return }
        link.isDirty = true
        markDirty(link)
    }

    func linkOpened() {
        pingSentAt = nil
        subscriber.connected()
    }

    func linkReceived(_ bytes: UnsafeRawBufferPointer) -> RedisFailure? {
        let awaiting = subscriber.isAwaitingPong
        let failure = subscriber.receive(bytes) { [unowned self] event in onEvent(event) }
        if awaiting && !subscriber.isAwaitingPong { pingSentAt = nil }
        return failure
    }

    var linkHasOutbound: Bool { !subscriber.outbound.isEmpty }

    func linkWrite(_ body: (UnsafeRawBufferPointer) throws -> Int) throws { try subscriber.writeOutbound(body) }

    func linkLost(_ failure: RedisFailure) {
        let interrupted = Array(subscriber.active)
        subscriber.reset()
        pingSentAt = nil
        if !interrupted.isEmpty { onInterrupted(interrupted) }
    }

    func linkCheck(now: MonotonicTime) -> RedisFailure? {
        if let pingSentAt {
            if now - pingSentAt > settings.replyTimeout { return .connectionLost("no pong for \(settings.replyTimeout.seconds) s") }
            return nil
        }
        if subscriber.heartbeat() { pingSentAt = now }
        return nil
    }
}
