import Dispatch
import RuntimeCore

/// A one-shot answer from the loop thread to a thread that blocks for it with a timeout.
/// Blocking (not async) on purpose: callers are test threads and the proxy has no executor.
final class ReplySlot<Value: Sendable>: Sendable {
    private let value = LockedValue<Value?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func fulfil(_ answer: Value) {
        value.withLock { $0 = answer }
        ready.signal()
    }

    /// nil when no answer came within `timeout` seconds.
    func wait(timeout: Double) -> Value? {
        guard ready.wait(timeout: .now() + timeout) == .success else { return nil }
        return value.withLock { $0 }
    }
}
