import Synchronization

/// The part of a proxy that other threads share with its loop: a request queue, a stop flag and
/// the waker that makes the loop look at both.
final class ProxyControl: Sendable {
    let waker: LoopWaker
    private let inbox = Mutex<(requests: [ProxyRequest], closed: Bool)>(([], false))
    private let stopFlag = Atomic<Bool>(false)

    init() throws(ImpairmentError) {
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

    func requestStop() {
        stopFlag.store(true, ordering: .releasing)
        waker.wake()
    }

    var isStopRequested: Bool { stopFlag.load(ordering: .acquiring) }
}
