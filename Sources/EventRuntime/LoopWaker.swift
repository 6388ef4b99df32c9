internal import CLinux
import Glibc
import Synchronization

/// The one part of an event loop other threads may touch: it wakes the loop and asks it to stop.
/// An eventfd: one descriptor, and a write is async-signal-safe.
public final class LoopWaker: Sendable {
    let descriptor: Int32
    private let stopRequested = Atomic<Bool>(false)

    public init() throws {
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

    public var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    func drain() {
        var value: UInt64 = 0
        _ = read(descriptor, &value, MemoryLayout<UInt64>.size)
    }
}
