@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// A ``StoreRequest`` stepped by hand against a scripted Redis: the commands it sent (by
/// ``NodeHarness/label(_:)``), replies given to them as ``StoreRequestDriver`` gives them (Redis's
/// error replies and the client's failures through ``RoomEventLog/storeResult(_:)``), waits
/// passed, and its outcome.
struct ScriptedRequest<Request: StoreRequest> {
    var request: Request
    var step: StoreStep<Request.Outcome>
    var now = MonotonicTime(nanoseconds: 1_000_000_000_000)
    /// Every command sent, in order (`then` included).
    var sentLabels: [String] = []

    init(_ request: Request) {
        var request = request
        step = request.start()
        self.request = request
        note(step)
    }

    /// The commands waiting for their replies.
    var waiting: [StoreCommand] {
        if case .send(let commands) = step { return commands }
        return []
    }

    var labels: [String] { waiting.map { NodeHarness.label($0.command) } }

    /// The delay asked for, when the request waits.
    var delay: TimeSpan? {
        if case .wait(let delay) = step { return delay }
        return nil
    }

    var outcome: Request.Outcome? {
        if case .done(let outcome, _) = step { return outcome }
        return nil
    }

    /// The commands sent after the outcome, unanswered.
    var then: [StoreCommand] {
        if case .done(_, let then) = step { return then }
        return []
    }

    /// Redis's replies (errors included) to the waiting commands, `after` the sending.
    mutating func reply(_ replies: RedisReply..., after: TimeSpan = .milliseconds(1), sourceLocation: SourceLocation = #_sourceLocation) {
        answer(replies.map { RoomEventLog.storeResult(.success($0)) }, after: after, sourceLocation: sourceLocation)
    }

    /// Every waiting command fails so in the client (a lost connection, an overdue reply, ...).
    mutating func fail(_ failure: RedisFailure, after: TimeSpan = .milliseconds(1), sourceLocation: SourceLocation = #_sourceLocation) {
        answer(waiting.map { _ in RoomEventLog.storeResult(.failure(failure)) }, after: after, sourceLocation: sourceLocation)
    }

    mutating func answer(_ results: [Result<RedisReply, RoomStoreError>], after: TimeSpan, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(results.count == waiting.count && !waiting.isEmpty, "answers for \(labels)", sourceLocation: sourceLocation)
        now = now + after
        step = request.answered(results, now: now)
        note(step)
    }

    /// The wait passes.
    mutating func wake(sourceLocation: SourceLocation = #_sourceLocation) {
        guard let delay else { Issue.record("the request does not wait", sourceLocation: sourceLocation); return }
        now = now + delay
        step = request.resume()
        note(step)
    }

    private mutating func note(_ step: StoreStep<Request.Outcome>) {
        switch step {
        case .send(let commands): sentLabels += commands.map { NodeHarness.label($0.command) }
        case .done(_, let then): sentLabels += then.map { NodeHarness.label($0.command) }
        case .wait: break
        }
    }
}

extension InMemoryRedis {
    /// Runs `request` to its end on this store (its `then` commands too), the replies as
    /// ``StoreRequestDriver`` gives them; waits pass at once.
    func run<Request: StoreRequest>(_ request: Request, sourceLocation: SourceLocation = #_sourceLocation) -> Request.Outcome? {
        var request = request
        var step = request.start()
        for _ in 0..<100 {
            switch step {
            case .send(let commands):
                let results = commands.map { command in execute(command.command).flatMap { RoomEventLog.storeResult(.success($0)) } }
                step = request.answered(results, now: MonotonicTime(nanoseconds: UInt64(clock) * 1_000_000))
            case .wait:
                step = request.resume()
            case .done(let outcome, let then):
                for command in then { _ = execute(command.command) }
                return outcome
            }
        }
        Issue.record("the request did not end", sourceLocation: sourceLocation)
        return nil
    }
}
