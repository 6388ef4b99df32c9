import EventRuntime

/// The blackhole windows still to come or in progress. Checked twice per packet (arrival and
/// departure), so finished windows are pruned to keep the scan a handful of comparisons.
struct BlackholeSchedule {
    private var windows: [BlackholeWindow]

    init(_ windows: [BlackholeWindow]) {
        self.windows = windows
    }

    mutating func add(_ window: BlackholeWindow) {
        windows.append(window)
    }

    /// Whether `elapsed` (since proxy start) falls in a window.
    mutating func isActive(at elapsed: TimeSpan) -> Bool {
        guard !windows.isEmpty else { return false }
        var active = false
        var anyFinished = false
        for window in windows {
            if window.contains(elapsed) { active = true }
            if window.end <= elapsed { anyFinished = true }
        }
        if anyFinished { windows.removeAll { $0.end <= elapsed } }
        return active
    }
}
