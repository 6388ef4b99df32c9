import QuicEngine

/// The live line on standard error, once a second.
extension LoadRun {
    func scheduleProgress(at deadline: MonotonicTime) {
        loop.schedule(at: deadline) { [unowned self] in
            guard phase != .done else { return }
            progress.show(progressText())
            stats.startSecond()
            scheduleProgress(at: deadline + .seconds(1))
        }
    }

    private func progressText() -> String {
        let elapsed = Int((MonotonicTime.now() - started).seconds.rounded())
        var parts = ["\(name): \(elapsed)s \(phase.rawValue)", "clients \(joinedCount)/\(options.clients)"]
        if phase == .connecting {
            parts.append("connect p99 \(LoadReport.milliseconds(stats.connectTime.percentile(99))) ms")
        } else {
            parts.append("sent \(stats.recentSent)/s")
            parts.append("delivered \(stats.recentDelivered)/s")
            parts.append("p99 \(LoadReport.milliseconds(stats.recentLatency.percentile(99))) ms")
            parts.append("dup \(stats.duplicates) reordered \(stats.outOfOrder)")
            parts += progressExtras()
            if stats.closedUnexpectedly > 0 { parts.append("closed \(stats.closedUnexpectedly)") }
        }
        return parts.joined(separator: " | ")
    }
}
