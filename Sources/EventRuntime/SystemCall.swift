import Glibc

/// Runs a system call, retrying on EINTR, and turns a -1 into a thrown error naming the call.
/// `function` is an autoclosure so that hot paths (sendto, recvmmsg) build no string unless the
/// call fails.
@discardableResult
package func systemCall<Result: BinaryInteger>(
    _ function: @autoclosure () -> String, _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw SystemCallError(function: function(), errno: code)
    }
}

/// Like `systemCall`, but nil when a non-blocking descriptor has nothing to give or no room
/// (EAGAIN), which on a socket is a normal event, not a failure.
package func nonBlockingSystemCall<Result: BinaryInteger>(
    _ function: @autoclosure () -> String, _ body: () -> Result
) throws(SystemCallError) -> Result? {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return nil }
        throw SystemCallError(function: function(), errno: code)
    }
}
