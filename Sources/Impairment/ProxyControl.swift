import EventRuntime
import RuntimeCore

/// The part of a proxy that other threads share with its loop: a request queue and the loop's
/// waker (made before the loop, so that a stop or a request may come before `run()`).
final class ProxyControl: Sendable {
    let waker: LoopWaker
    private let inbox = LockedValue<(requests: [ProxyRequest], closed: Bool)>(([], false))

    init() throws {
        waker = try LoopWaker()
    }

    /// false once the loop has finished: nobody will answer.
    func submit(_ request: ProxyRequest) -> Bool {
        let accepted = inbox.withLock { inbox in
            if inbox.closed { return false }
            inbox.requests.append(request)
            return true
        }
        if accepted { waker.wake() }
        return accepted
    }

    func takeRequests() -> [ProxyRequest] {
        inbox.withLock { inbox in
            defer { inbox.requests.removeAll() }
            return inbox.requests
        }
    }

    /// Refuses further requests and hands back the unanswered ones.
    func close() -> [ProxyRequest] {
        inbox.withLock { inbox in
            inbox.closed = true
            defer { inbox.requests.removeAll() }
            return inbox.requests
        }
    }

    /// Makes the loop return from `run()` (the waker's stop flag, which the loop checks each turn).
    func requestStop() {
        waker.requestStop()
    }
}
