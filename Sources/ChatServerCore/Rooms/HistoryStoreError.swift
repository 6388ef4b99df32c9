/// A history store failure, with a message for the operator that names the file and cause.
public struct HistoryStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
