import EventRuntime

/// Work handed to the loop thread by other threads.
enum ProxyRequest: Sendable {
    /// A command line, answered like one typed on stdin.
    case command(String, ReplySlot<String>)
    /// Answered with a statistics snapshot as soon as `condition` holds, or nil at `deadline`.
    case statistics(condition: @Sendable (ProxyStatistics) -> Bool, deadline: MonotonicTime, reply: ReplySlot<ProxyStatistics?>)
}
