import Foundation
import QuicEngine
import Testing

struct EventLoopTests {
    /// A timer that a tick schedules while nothing else bounds the wait still fires on time:
    /// the wait is bounded by timers made during the ticks too (avahi's poll API arms its
    /// timeouts from inside the events a tick hands over), not only by those made before.
    @Test func timerScheduledInsideATickBoundsTheWait() throws {
        let loop = try EventLoop()
        var fired = false
        var scheduled = false
        // Unowned: the loop keeps its ticks until it is freed, and one holding the loop would
        // keep both alive for the rest of the run (LeakSanitizer's report).
        loop.addTick { [unowned loop] in
            if !scheduled {
                scheduled = true
                loop.schedule(at: .now() + .milliseconds(20)) {
                    fired = true
                    loop.stop()
                }
            }
            return (nil, false)
        }
        // Only a bound on a failing run: without the fix the loop would wait for ever.
        let waker = loop.waker
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 10)
            waker.requestStop()
        }
        loop.run()
        #expect(fired)
    }
}
