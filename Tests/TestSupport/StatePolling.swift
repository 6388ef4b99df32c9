import Foundation

/// Waiting for the state of a process the test cannot get events from (a Redis Cluster's view
/// of itself, INFO replication): asks `condition` again every `interval` until it holds, up to
/// `timeout` (scaled). What is waited for is that state, never a length of time; returns
/// whether it came.
public func waitForState(timeout: TimeInterval = 30, interval: TimeInterval = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date() + TestTime.scaled(timeout)
    while try !condition() {
        guard Date() < deadline else { return false }
        Thread.sleep(forTimeInterval: interval)
    }
    return true
}
