import Glibc

/// A value several threads share, guarded by a pthread mutex. ThreadSanitizer intercepts pthread
/// mutexes and so sees the order they give; the standard library's `Mutex` locks through a futex
/// inside the uninstrumented runtime, which it cannot see, and it reported the loop channel's
/// queue, appended to by a worker and drained by the loop under that lock, as a race.
public final class LockedValue<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
