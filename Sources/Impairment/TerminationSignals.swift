import Glibc
import Synchronization

/// SIGINT and SIGTERM become a wake-up of the proxy's loop, which then stops and returns its
/// statistics, so `udp-impair` prints them and exits 0 instead of dying silently.
///
/// Glibc's module has no signalfd, so this is the classic self-pipe: the handler only stores the
/// signal number and writes one byte, both async-signal-safe.
public enum TerminationSignals {
    private static let wakeDescriptor = Atomic<Int32>(-1)
    private static let receivedSignal = Atomic<Int32>(0)

    /// Routes SIGINT and SIGTERM to `proxy`'s loop. One proxy per process can be the target.
    public static func install(for proxy: ImpairmentProxy) {
        // Touch both statics here: their lazy initialisation is not safe inside a handler.
        receivedSignal.store(0, ordering: .relaxed)
        wakeDescriptor.store(proxy.control.waker.writeDescriptor, ordering: .releasing)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { number in
                TerminationSignals.receivedSignal.store(number, ordering: .relaxed)
                var byte: UInt8 = 1
                _ = write(TerminationSignals.wakeDescriptor.load(ordering: .acquiring), &byte, 1)
            }
            sigaddset(&unblocked, signalNumber)
        }
        // A parent may start us with these blocked (the mask is inherited across exec, and
        // test runners block signals on their threads); blocked, SIGTERM would never arrive.
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// The signal that asked the process to stop, if any.
    static var received: Int32? {
        let number = receivedSignal.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }
}
