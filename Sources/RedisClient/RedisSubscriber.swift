import EventRuntime

/// The pub/sub connection to one Redis server, without I/O: the owner says which subscriptions
/// it wants, this sends (P|S)SUBSCRIBE one channel per command, so that each command has exactly
/// one answer and they can be matched in order, and turns the bytes that come back into
/// ``RedisSubscriberEvent``s. After a new connection `connected()` asks for every wanted
/// subscription again; their confirmations carry `restored: true`.
///
/// A PING on the connection (`heartbeat`) proves it alive while no message flows: in RESP2
/// subscribed mode Redis answers it with the array `pong`, "".
public final class RedisSubscriber {
    public let limits: RedisLimits
    public private(set) var outbound = RedisOutboundBuffer()
    /// What the owner wants, and whether each has been confirmed on some connection before.
    public private(set) var wanted: [RedisSubscription: Bool] = [:]
    /// What Redis confirmed on this connection.
    public private(set) var active: Set<RedisSubscription> = []
    private var expected = FIFOQueue<Expectation>()
    private var reader: RESPReader
    private var isConnected = false
    public private(set) var broken: RedisFailure?
    private var generation = 0

    private enum Expectation: Equatable {
        case subscribe(RedisSubscription)
        case unsubscribe(RedisSubscription)
        case pong
    }

    public init(limits: RedisLimits = RedisLimits()) {
        self.limits = limits
        reader = RESPReader(limits: limits)
    }

    /// Commands sent whose answer has not come yet.
    public var pendingCount: Int { expected.count }

    /// Wants `subscription`; sends the command at once when connected.
    public func subscribe(_ subscription: RedisSubscription) -> RedisFailure? {
        guard wanted[subscription] == nil else { return nil }
        guard wanted.count < limits.maxPendingCommands else {
            return .limitExceeded("more than \(limits.maxPendingCommands) subscriptions")
        }
        wanted[subscription] = false
        if isConnected { sendSubscribe(subscription) }
        return nil
    }

    /// No longer wants `subscription`.
    public func unsubscribe(_ subscription: RedisSubscription) {
        guard wanted.removeValue(forKey: subscription) != nil else { return }
        if isConnected {
            outbound.append(RedisCommand(arguments: [Array(subscription.kind.unsubscribeCommand.utf8), subscription.channel]))
            expected.append(.unsubscribe(subscription))
        }
    }

    /// Forgets `subscription` without a command (the connection it was on is gone, or it is
    /// being moved to another shard's subscriber).
    public func forget(_ subscription: RedisSubscription) -> Bool {
        active.remove(subscription)
        return wanted.removeValue(forKey: subscription) ?? false
    }

    /// Wants `subscription` as one that was confirmed before (moved here from another shard):
    /// its confirmation will say `restored`.
    public func adopt(_ subscription: RedisSubscription, confirmedBefore: Bool) {
        guard wanted[subscription] == nil else { return }
        wanted[subscription] = confirmedBefore
        if isConnected { sendSubscribe(subscription) }
    }

    /// A new connection is up: every wanted subscription is asked for again.
    public func connected() {
        isConnected = true
        for subscription in wanted.keys { sendSubscribe(subscription) }
    }

    /// Sends a PING unless one is already waiting; returns false when one is (the owner
    /// decides how long an unanswered PING may wait).
    @discardableResult
    public func heartbeat() -> Bool {
        guard isConnected, !expected.contains(.pong) else { return false }
        outbound.append(RedisCommand("PING"))
        expected.append(.pong)
        return true
    }

    /// True while a PING is unanswered.
    public var isAwaitingPong: Bool { expected.contains(.pong) }

    private func sendSubscribe(_ subscription: RedisSubscription) {
        outbound.append(RedisCommand(arguments: [Array(subscription.kind.subscribeCommand.utf8), subscription.channel]))
        expected.append(.subscribe(subscription))
    }

    /// Parses `bytes` into events. Returns a failure when the bytes broke RESP or a limit, or
    /// were no pub/sub traffic; the subscriber is then `broken` and the owner drops the socket.
    @discardableResult
    public func receive(_ bytes: UnsafeRawBufferPointer, _ deliver: (RedisSubscriberEvent) -> Void) -> RedisFailure? {
        if let broken { return broken }
        let current = generation
        broken = reader.parse(bytes) { reply in
            guard generation == current else { throw RESPReader.Abandoned() }
            try handle(reply, deliver)
        }
        return broken
    }

    public func receive(_ bytes: [UInt8], _ deliver: (RedisSubscriberEvent) -> Void) -> RedisFailure? {
        bytes.withUnsafeBytes { receive($0, deliver) }
    }

    private func handle(_ reply: RedisReply, _ deliver: (RedisSubscriberEvent) -> Void) throws {
        // With nothing subscribed (yet, or any more) Redis answers PING as to any client.
        if case .status(let text) = reply, text == "PONG", expected.first == .pong {
            _ = expected.popFirst()
            return
        }
        if case .error(let text) = reply {
            // The answer to the oldest command: a subscription refused (MOVED, CROSSSLOT, ...).
            switch expected.popFirst() {
            case .subscribe(let subscription):
                if wanted[subscription] != nil { deliver(.dropped(subscription, reason: text)) }
            case .unsubscribe, .pong, nil:
                throw RedisFailure.protocolViolation("unexpected error on the subscriber connection: \(text)")
            }
            return
        }
        guard let elements = reply.elements, let word = elements.first?.bytes else {
            throw RedisFailure.protocolViolation("not pub/sub traffic on the subscriber connection")
        }
        if String(decoding: word, as: UTF8.self).lowercased() == "pong" {
            guard expected.first == .pong else { throw RedisFailure.protocolViolation("a pong nobody asked for") }
            _ = expected.popFirst()
            return
        }
        guard let (kind, role) = RedisSubscriptionKind.parse(word), elements.count >= 3,
              let name = elements[1].bytes else {
            throw RedisFailure.protocolViolation("unknown pub/sub reply \(String(decoding: word, as: UTF8.self))")
        }
        let subscription = RedisSubscription(kind, name)
        switch role {
        case .message:
            if kind == .pattern {
                guard elements.count == 4, let channel = elements[2].bytes, let payload = elements[3].bytes else {
                    throw RedisFailure.protocolViolation("malformed pmessage")
                }
                deliver(.message(RedisPush(subscription: subscription, channel: channel, payload: payload)))
            } else {
                guard let payload = elements[2].bytes else { throw RedisFailure.protocolViolation("malformed message") }
                deliver(.message(RedisPush(subscription: subscription, channel: name, payload: payload)))
            }
        case .subscribed:
            guard expected.first == .subscribe(subscription) else {
                throw RedisFailure.protocolViolation("a confirmation of \(subscription) nobody asked for")
            }
            _ = expected.popFirst()
            guard let confirmedBefore = wanted[subscription] else { return }
            active.insert(subscription)
            wanted[subscription] = true
            deliver(.subscribed(subscription, restored: confirmedBefore))
        case .unsubscribed:
            if expected.first == .unsubscribe(subscription) {
                _ = expected.popFirst()
                active.remove(subscription)
                if wanted[subscription] == nil { deliver(.unsubscribed(subscription)) }
            } else {
                // Unasked: Redis Cluster ends shard subscriptions of a slot this node lost.
                active.remove(subscription)
                if wanted[subscription] != nil { deliver(.dropped(subscription, reason: "unsubscribed by the server")) }
            }
        }
    }

    /// The connection is gone: nothing is active any more; wanted subscriptions stay wanted and
    /// are asked for again by the next `connected()`.
    public func reset() {
        isConnected = false
        active.removeAll()
        expected.removeAll()
        outbound.removeAll()
        reader = RESPReader(limits: limits)
        broken = nil
        generation += 1
    }

    public func writeOutbound(_ body: (UnsafeRawBufferPointer) throws -> Int) rethrows {
        try outbound.write(body)
    }
}

extension FIFOQueue where Element: Equatable {
    func contains(_ element: Element) -> Bool {
        for index in 0..<count where self[index] == element { return true }
        return false
    }
}
