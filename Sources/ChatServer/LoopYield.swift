import Glibc

/// Worker threads give way to the event loop.
enum LoopYield {
    /// Puts the calling thread in Linux's SCHED_IDLE class (scheduling policies are per thread;
    /// pid 0 is the calling one), so that on a core it shares with the event loop the loop
    /// preempts it at once: a burst of logins or a file transfer slows itself, not everyone's
    /// messages (docs/PERFORMANCE.md, "Accounts" and "Files next to chat"). Called at the start
    /// of each job: a Dispatch queue may run its jobs on different threads. Glibc declares
    /// SCHED_IDLE only under _GNU_SOURCE, hence its value.
    static func onThisThread() {
        let schedIdle: Int32 = 5
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, schedIdle, &parameters)
    }
}
