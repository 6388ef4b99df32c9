import Foundation

/// How much longer than usual the tests wait for something to happen: the factor in the
/// environment variable `QCHAT_TEST_TIME_SCALE` (1 when unset). `make test-sanitize` sets it,
/// because sanitized binaries run several times slower. Only the harnesses' waits are scaled, the
/// deadlines after which a test gives up, never a duration that a test measures and asserts on.
public enum TestTime {
    public static let scale = environmentFactor("QCHAT_TEST_TIME_SCALE")

    public static func scaled(_ seconds: TimeInterval) -> TimeInterval { seconds * scale }
}
