/// Identifies a scheduled timer so it can be cancelled.
public struct LoopTimerID: Hashable, Sendable {
    let value: UInt64
}

/// One-shot application timers of an event loop, earliest first.
struct LoopTimers {
    private var pending: [(deadline: QuicTime, id: UInt64, body: () -> Void)] = []
    private var nextID: UInt64 = 1

    var nextDeadline: QuicTime? { pending.first?.deadline }

    mutating func schedule(at deadline: QuicTime, _ body: @escaping () -> Void) -> LoopTimerID {
        let id = nextID
        nextID += 1
        let index = pending.firstIndex { $0.deadline > deadline } ?? pending.count
        pending.insert((deadline, id, body), at: index)
        return LoopTimerID(value: id)
    }

    mutating func cancel(_ id: LoopTimerID) {
        pending.removeAll { $0.id == id.value }
    }

    /// Removes and returns the bodies that are due; the caller runs them, so a body may
    /// schedule or cancel timers.
    mutating func takeDue(now: QuicTime) -> [() -> Void] {
        var due: [() -> Void] = []
        while let first = pending.first, first.deadline <= now {
            pending.removeFirst()
            due.append(first.body)
        }
        return due
    }
}
