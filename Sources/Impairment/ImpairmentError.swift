/// A flag, option value or stdin command that does not parse. (A system call that fails throws
/// the runtime's `SystemCallError`.)
public enum ImpairmentError: Error, Equatable, CustomStringConvertible {
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .invalidArgument(let message): message
        }
    }
}
