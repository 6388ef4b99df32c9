internal import CLinux
import Glibc
import Synchronization

/// The one part of an event loop other threads may touch: it wakes the loop and asks it to stop.
public final class LoopWaker: Sendable {
    let descriptor: Int32
    private let stopRequested = Atomic<Bool>(false)

    init() throws {
        descriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit { close(descriptor) }

    public func wake() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Asks the loop to return from `run()` after its current iteration.
    public func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        wake()
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    func drain() {
        var value: UInt64 = 0
        _ = read(descriptor, &value, MemoryLayout<UInt64>.size)
    }
}

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
