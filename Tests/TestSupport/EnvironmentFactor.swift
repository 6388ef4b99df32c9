import Foundation

/// The number in environment variable `name` when it is at least 1, else 1: the scale factors the
/// sanitized runs set for the harnesses (TestTime, TestMemory).
func environmentFactor(_ name: String) -> Double {
    guard let text = ProcessInfo.processInfo.environment[name], let value = Double(text), value >= 1 else { return 1 }
    return value
}
