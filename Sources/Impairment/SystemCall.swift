import Glibc

/// Runs a system call, retrying on EINTR, and turns a -1 into an error naming the call.
///
/// `function` is an autoclosure so that hot paths (sendto, recvfrom) build no string unless the
/// call fails.
@discardableResult
func systemCall<Result: BinaryInteger>(
    _ function: @autoclosure () -> String, _ body: () -> Result
) throws(ImpairmentError) -> Result {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        throw ImpairmentError.system(function: function(), errno: code, message: String(cString: strerror(code)))
    }
}

/// Like `systemCall`, but nil when a non-blocking descriptor has nothing to give or no room
/// (EAGAIN), which on a UDP socket is a normal event, not a failure.
func nonBlockingSystemCall<Result: BinaryInteger>(
    _ function: @autoclosure () -> String, _ body: () -> Result
) throws(ImpairmentError) -> Result? {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return nil }
        throw ImpairmentError.system(function: function(), errno: code, message: String(cString: strerror(code)))
    }
}
