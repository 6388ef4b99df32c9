/// A configuration value out of range; `message` is meant for the operator.
public struct ChatServerConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public var description: String { "invalid configuration: \(message)" }
}
