import Glibc

/// Nanoseconds, the one time unit inside the proxy: Int64 arithmetic is cheaper per packet than
/// `Duration` and covers 292 years.
public typealias Nanoseconds = Int64

/// CLOCK_MONOTONIC, so that delays and schedules are immune to wall-clock steps.
enum MonotonicClock {
    static func now() -> Nanoseconds {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Nanoseconds(time.tv_sec) * 1_000_000_000 + Nanoseconds(time.tv_nsec)
    }
}
