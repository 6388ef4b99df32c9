import RuntimeCore

/// Identifies a scheduled timer so it can be cancelled.
public struct LoopTimerID: Hashable, Sendable {
    let value: UInt64
}

/// One-shot application timers of an event loop, earliest first (equal deadlines in the order
/// they were scheduled), on the one ``DeadlineHeap``. A cancelled timer's entry stays in the heap
/// until it surfaces; only its body is dropped at once.
struct LoopTimers {
    private var heap = DeadlineHeap<UInt64>()
    private var bodies: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    /// The earliest deadline of a timer still scheduled (cancelled entries on top are let go).
    mutating func nextDeadline() -> MonotonicTime? {
        while let top = heap.earliest {
            if bodies[top.element] != nil { return top.deadline }
            heap.popEarliest()
        }
        return nil
    }

    mutating func schedule(at deadline: MonotonicTime, _ body: @escaping () -> Void) -> LoopTimerID {
        let id = nextID
        nextID += 1
        bodies[id] = body
        heap.insert(id, deadline: deadline)
        return LoopTimerID(value: id)
    }

    mutating func cancel(_ id: LoopTimerID) {
        bodies[id.value] = nil
    }

    /// Removes and returns the bodies that are due; the caller runs them, so a body may
    /// schedule or cancel timers.
    mutating func takeDue(now: MonotonicTime) -> [() -> Void] {
        var due: [() -> Void] = []
        while let id = heap.popDue(now: now) {
            if let body = bodies.removeValue(forKey: id) { due.append(body) }
        }
        return due
    }
}
