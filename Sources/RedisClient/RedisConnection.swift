import EventRuntime

/// One command connection to Redis without I/O: commands in, bytes out; bytes in, each reply
/// matched to its command in order (Redis answers a connection's commands in the order sent, so
/// any number may be pipelined). `Tag` is what the owner needs to answer a command (a completion,
/// an index in a test).
///
/// RESP2 only (hiredis 0.14's reader knows no RESP3 push type), so this connection never
/// subscribes: a subscribed RESP2 connection accepts no other commands. ``RedisSubscriber`` is
/// the other kind.
public final class RedisConnection<Tag> {
    public let limits: RedisLimits
    public private(set) var outbound = RedisOutboundBuffer()
    private var pending = FIFOQueue<Tag>()
    private var reader: RESPReader
    /// Set once the connection broke RESP: it must be reset (a new socket) before further use.
    public private(set) var broken: RedisFailure?
    /// Counts resets, so that a delivery that reset the connection stops the parse it came from.
    private var generation = 0

    public init(limits: RedisLimits = RedisLimits()) {
        self.limits = limits
        reader = RESPReader(limits: limits)
    }

    /// Commands sent (or buffered to send) and not answered yet.
    public var pendingCount: Int { pending.count }

    /// The tag of the command waiting longest for its reply.
    public var oldestPending: Tag? { pending.first }

    /// Queues `command`; nil when it will be answered through `receive`, else why it was
    /// refused (then it was not queued and will never be answered).
    public func send(_ command: RedisCommand, tag: Tag) -> RedisFailure? {
        if let broken { return broken }
        guard pending.count < limits.maxPendingCommands else {
            return .limitExceeded("more than \(limits.maxPendingCommands) commands waiting for replies")
        }
        guard outbound.count < limits.maxOutboundBytes else {
            return .limitExceeded("more than \(limits.maxOutboundBytes) bytes waiting to be sent")
        }
        outbound.append(command)
        pending.append(tag)
        return nil
    }

    /// Parses `bytes` and hands every complete reply to `deliver` with its command's tag.
    /// Returns a failure when the bytes broke RESP, exceeded a reply limit, or answered nothing
    /// that was asked; the connection is then `broken` and the owner calls `reset`.
    @discardableResult
    public func receive(_ bytes: UnsafeRawBufferPointer, _ deliver: (Tag, RedisReply) -> Void) -> RedisFailure? {
        if let broken { return broken }
        let current = generation
        broken = reader.parse(bytes) { reply in
            // A delivery that reset this connection leaves the rest of the bytes to nobody.
            guard generation == current else { throw RESPReader.Abandoned() }
            guard let tag = pending.popFirst() else {
                throw RedisFailure.protocolViolation("a reply that answers no command")
            }
            deliver(tag, reply)
        }
        return broken
    }

    public func receive(_ bytes: [UInt8], _ deliver: (Tag, RedisReply) -> Void) -> RedisFailure? {
        bytes.withUnsafeBytes { receive($0, deliver) }
    }

    /// The connection is gone (or is being replaced): returns every unanswered command's tag, in
    /// order, for the owner to answer with a failure, and starts afresh for a new socket.
    public func reset() -> [Tag] {
        var tags: [Tag] = []
        tags.reserveCapacity(pending.count)
        while let tag = pending.popFirst() { tags.append(tag) }
        outbound.removeAll()
        reader = RESPReader(limits: limits)
        broken = nil
        generation += 1
        return tags
    }

    /// Writes from the outbound buffer (the driver's socket write).
    public func writeOutbound(_ body: (UnsafeRawBufferPointer) throws -> Int) rethrows {
        try outbound.write(body)
    }
}
