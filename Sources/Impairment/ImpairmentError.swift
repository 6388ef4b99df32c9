/// Everything the proxy can fail with: a system call, or a value a person typed.
public enum ImpairmentError: Error, Equatable, CustomStringConvertible {
    /// A system call returned -1; `function` names it (and often its argument).
    case system(function: String, errno: Int32, message: String)
    /// A flag, option value or stdin command that does not parse.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .system(let function, let code, let message): "\(function) failed: \(message) (errno \(code))"
        case .invalidArgument(let message): message
        }
    }
}
