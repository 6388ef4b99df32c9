import Glibc

/// A system call of the runtime failed: `function` names it (often with its argument, as in
/// "bind 127.0.0.1:4433"), `errno` is what it failed with.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    public var function: String
    public var errno: Int32
    public var message: String

    public init(function: String, errno: Int32, message: String? = nil) {
        self.function = function
        self.errno = errno
        self.message = message ?? String(cString: strerror(errno))
    }

    public var description: String { "\(function): \(message) (errno \(errno))" }
}
