import Glibc

/// Runs a system call, retrying on EINTR, and turns a -1 into a thrown error naming the call.
@discardableResult
func systemCall<Result: BinaryInteger>(_ function: String, _ body: () -> Result) throws -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw QuicError.system(function: function, errno: code, message: String(cString: strerror(code)))
    }
}

extension QuicError {
    /// True for EAGAIN/EWOULDBLOCK from a non-blocking descriptor.
    var isWouldBlock: Bool {
        if case .system(_, let code, _) = self { return code == EAGAIN || code == EWOULDBLOCK }
        return false
    }
}
