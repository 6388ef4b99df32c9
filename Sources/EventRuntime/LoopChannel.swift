/// Messages from any thread to a consumer that runs on the loop thread.
public final class LoopChannel<Message: Sendable>: Sendable {
    private let messages = LockedValue<[Message]>([])
    private let waker: LoopWaker

    init(waker: LoopWaker) { self.waker = waker }

    public func send(_ message: Message) {
        messages.withLock { $0.append(message) }
        waker.wake()
    }

    func drain() -> [Message] {
        messages.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
    }
}
