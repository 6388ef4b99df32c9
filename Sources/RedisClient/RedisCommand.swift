/// One command as its arguments, each a binary-safe string.
public struct RedisCommand: Hashable, Sendable {
    public var arguments: [[UInt8]]

    public init(arguments: [[UInt8]]) { self.arguments = arguments }

    public init(_ name: String, _ arguments: String...) {
        self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
    }

    public init(_ name: String, _ arguments: [String]) {
        self.arguments = [Array(name.utf8)] + arguments.map { Array($0.utf8) }
    }

    /// The command's name, upper-cased (for routing and error messages).
    public var name: String { String(decoding: arguments.first ?? [], as: UTF8.self).uppercased() }

    public func appending(_ argument: [UInt8]) -> RedisCommand {
        RedisCommand(arguments: arguments + [argument])
    }

    public func appending(_ argument: String) -> RedisCommand { appending(Array(argument.utf8)) }
}
