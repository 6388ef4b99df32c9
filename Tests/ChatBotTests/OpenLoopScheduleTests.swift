@testable import ChatBot
import QuicEngine
import Testing

/// The open-loop schedule: intended send times come from the rate alone, never from when the
/// sender got round to sending.
@Suite("open-loop schedule")
struct OpenLoopScheduleTests {
    let start = MonotonicTime(nanoseconds: 1_000_000_000)

    /// Uniform: the k-th message is due at start + k/rate, whether the sender polls on time or
    /// stalls for 300 ms and then sends the backlog at once.
    @Test func uniformTimesIgnoreSendDelays() {
        var prompt = OpenLoopSchedule(start: start, end: start + .seconds(1), rate: 1000)
        var stalled = prompt
        var promptTimes: [UInt64] = []
        var clock = start
        while clock < start + .seconds(2) {
            while let due = prompt.takeDue(by: clock) { promptTimes.append(due.nanoseconds) }
            clock = clock + .microseconds(100)
        }
        var stalledTimes: [UInt64] = []
        for stall in [0, 300, 301, 700, 2000] as [UInt64] {
            while let due = stalled.takeDue(by: start + .milliseconds(stall)) { stalledTimes.append(due.nanoseconds) }
        }
        #expect(promptTimes.count == 1000)
        #expect(promptTimes == (0..<1000).map { start.nanoseconds + UInt64($0) * 1_000_000 })
        #expect(stalledTimes == promptTimes)
    }

    /// Nothing is due before its time, and the backlog after a stall is exactly the messages
    /// whose intended time has passed.
    @Test func backlogIsWhatHasFallenDue() {
        var schedule = OpenLoopSchedule(start: start, end: start + .seconds(10), rate: 100)
        #expect(schedule.takeDue(by: MonotonicTime(nanoseconds: start.nanoseconds - 1)) == nil)
        var backlog = 0
        while schedule.takeDue(by: start + .milliseconds(250)) != nil { backlog += 1 }
        #expect(backlog == 26)  // 0, 10, ..., 250 ms
        #expect(schedule.nextDue == start + .milliseconds(260))
        #expect(OpenLoopSchedule(start: start, end: start + .seconds(1), rate: 0).nextDue == nil)
    }

    /// Poisson: the same seed gives the same intended times however the sender is delayed; the
    /// mean rate is right and the gaps vary as exponential gaps do.
    @Test func poissonTimesIgnoreSendDelays() {
        let end = start + .seconds(20)
        var prompt = OpenLoopSchedule(start: start, end: end, rate: 500, arrivals: .poisson, seed: 9)
        var late = prompt
        var promptTimes: [UInt64] = []
        var clock = start
        while let next = prompt.nextDue {
            clock = next
            while let due = prompt.takeDue(by: clock) { promptTimes.append(due.nanoseconds) }
        }
        var lateTimes: [UInt64] = []
        var lateClock = start
        while late.nextDue != nil {
            lateClock = lateClock + .milliseconds(137)
            while let due = late.takeDue(by: lateClock) { lateTimes.append(due.nanoseconds) }
        }
        #expect(lateTimes == promptTimes)
        let rate = Double(promptTimes.count) / 20
        #expect(abs(rate - 500) < 25, "rate \(rate)")
        let gaps = zip(promptTimes.dropFirst(), promptTimes).map { Double($0 - $1) }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        let deviation = (gaps.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(gaps.count)).squareRoot()
        // For exponential gaps the standard deviation equals the mean.
        #expect(abs(deviation / mean - 1) < 0.1, "coefficient of variation \(deviation / mean)")
        #expect(promptTimes.allSatisfy { $0 >= start.nanoseconds && $0 < end.nanoseconds })
    }
}
