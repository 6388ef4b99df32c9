import Foundation
import EventRuntime
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

    /// A paused loop reads nothing before the pause ends, then everything that arrived in it at
    /// once: bytes written into a pipe during the pause reach its handler in one wake-up, no
    /// earlier than the pause's end.
    @Test func pausedInputIsReadTogetherAfterThePause() throws {
        let loop = try EventLoop()
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        defer { close(descriptors[0]); close(descriptors[1]) }
        let reader = descriptors[0], writer = descriptors[1]
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        var reads: [(bytes: Int, at: MonotonicTime)] = []
        var pauseEnd: MonotonicTime?
        // Unowned: the loop keeps its watches until it is freed (LeakSanitizer's report of a
        // handler that held its loop).
        try loop.watchReadable(reader) { [unowned loop] in
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(reader, &buffer, buffer.count)
            guard count > 0 else { return }
            reads.append((count, .now()))
            if pauseEnd == nil {
                // The first byte pauses input; three more arrive during the pause.
                let end = MonotonicTime.now() + .milliseconds(50)
                pauseEnd = end
                loop.pauseInput(until: end)
                for _ in 0..<3 { _ = write(writer, [UInt8(1)], 1) }
            } else {
                loop.stop()
            }
        }
        _ = write(writer, [UInt8(1)], 1)
        let waker = loop.waker
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 10)
            waker.requestStop()
        }
        loop.run()
        #expect(reads.map(\.bytes) == [1, 3], "the bytes written during the pause were not read together: \(reads.map(\.bytes))")
        if reads.count == 2, let end = pauseEnd { #expect(reads[1].at >= end, "read before the pause ended") }
    }
}
