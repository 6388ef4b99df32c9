import EventRuntime
import RedisClient

/// Performs ``StoreRequest``s: their commands on the ``RedisClient`` (all of a step at once, the
/// results fed back together and in order, Redis's error replies as failures), their waits on the
/// event loop, and hands each outcome to its completion. Nothing of the requests' logic is here.
/// Loop thread only.
///
/// The completions it gives the client and the loop hold it strongly: the client answers every
/// command exactly once (a reply, a failure at the latest after its reply timeout, `.stopped` when
/// stopped) and a wait's timer fires once, so that lasts until then; a `[weak self]` there would
/// leave the driver, which lives as long as its node, a weak-reference side table LeakSanitizer
/// reports (docs/SANITIZERS.md, "weak-reference side tables of live cluster objects").
public final class StoreRequestDriver {
    let client: RedisClient
    let loop: EventLoop
    /// Set by ``stop()``: what is still in flight (a reply, a wait) then does nothing.
    private var stopped = false

    public init(client: RedisClient, loop: EventLoop) {
        self.client = client
        self.loop = loop
    }

    public func run<Request: StoreRequest>(_ request: Request, _ completion: @escaping (Request.Outcome) -> Void) {
        let running = RunningRequest(request, completion)
        perform(running, running.request.start())
    }

    /// The link stops: requests still in flight end there, unanswered (no retry of a read or a
    /// write behind goes on against a stopped client), as ``ClusterNodeDriver/stop()``.
    public func stop() { stopped = true }

    /// Sends `command` and forgets it (nobody waits for its reply).
    public func send(_ command: StoreCommand) {
        client.send(command.command, key: command.key, durable: command.durable) { _ in }
    }

    private func perform<Request: StoreRequest>(_ running: RunningRequest<Request>, _ step: StoreStep<Request.Outcome>) {
        guard !stopped else { return }
        switch step {
        case .send(let commands):
            guard !commands.isEmpty else { return perform(running, running.request.answered([], now: .now())) }
            var results = [Result<RedisReply, RoomStoreError>?](repeating: nil, count: commands.count)
            var remaining = commands.count
            for (index, command) in commands.enumerated() {
                client.send(command.command, key: command.key, durable: command.durable) { [self] result in
                    results[index] = RoomEventLog.storeResult(result)
                    remaining -= 1
                    guard remaining == 0 else { return }
                    perform(running, running.request.answered(results.map { $0! }, now: .now()))
                }
            }
        case .wait(let delay):
            loop.schedule(at: .now() + delay) { [self] in perform(running, running.request.resume()) }
        case .done(let outcome, let then):
            for command in then { send(command) }
            running.completion(outcome)
        }
    }
}

/// A request between its steps.
private final class RunningRequest<Request: StoreRequest> {
    var request: Request
    let completion: (Request.Outcome) -> Void

    init(_ request: Request, _ completion: @escaping (Request.Outcome) -> Void) {
        self.request = request
        self.completion = completion
    }
}
