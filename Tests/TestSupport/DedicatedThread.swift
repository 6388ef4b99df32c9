import Foundation

/// Runs `body` on a new thread and waits for it, so blocking loops stay off the cooperative pool.
public func onDedicatedThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
