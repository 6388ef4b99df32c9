import Glibc

/// Worker threads give way to the event loop, without being starved by the rest of the machine.
enum LoopYield {
    /// The nice value of a worker's jobs: the lowest weight Linux's fair scheduler has (15 against
    /// a nice-0 thread's 1,024, about 1.5% of a core it shares with one busy thread).
    static let workerNice: Int32 = 19

    /// Puts the calling thread in Linux's SCHED_BATCH class at nice 19 (scheduling policies and
    /// nice values are per thread; pid 0 is the calling one), so that on a core it shares with
    /// the event loop the loop wins at once: a burst of logins or a file transfer slows itself,
    /// not everyone's messages (docs/PERFORMANCE.md, "Accounts" and "Files next to chat").
    ///
    /// Not SCHED_IDLE, which it was until December 2026: an idle-class thread gets no CPU at all
    /// while any other thread of the machine wants it, so on a loaded host a registration or a
    /// login waited as long as the load lasted (tests on a loaded CI machine timed out waiting
    /// for one), and an unprivileged thread cannot leave that class again (the kernel's
    /// `can_nice` check) to be given a floor. At nice 19 a hash of tens of milliseconds takes a
    /// few seconds against busy neighbours, but it ends. Called at the start of each job: a
    /// Dispatch queue may run its jobs on different threads. Glibc declares SCHED_BATCH only
    /// under _GNU_SOURCE, hence its value.
    static func onThisThread() {
        let schedBatch: Int32 = 3
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, schedBatch, &parameters)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, workerNice)
    }
}
