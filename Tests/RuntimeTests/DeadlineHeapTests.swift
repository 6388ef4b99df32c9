import RuntimeCore
import SplitMix
import Testing

/// The one deadline heap of the tree (the engine's timers, the loop's scheduled bodies, the
/// impairment proxy's delayed packets).
@Suite struct DeadlineHeapTests {
    /// The timer heap releases in deadline order, ties in insertion order, and nothing before its time.
    @Test func deadlineHeapOrdersByDeadlineThenInsertion() {
        var heap = DeadlineHeap<Int>()
        var random = SplitMix64(seed: 11)
        var expected: [(UInt64, Int)] = []
        for value in 0..<500 {
            let deadline = UInt64.random(in: 1..<51, using: &random)
            heap.insert(value, deadline: MonotonicTime(nanoseconds: deadline))
            expected.append((deadline, value))
        }
        expected.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        #expect(heap.popDue(now: MonotonicTime(nanoseconds: 0)) == nil)
        var released: [Int] = []
        while let value = heap.popDue(now: MonotonicTime(nanoseconds: 50)) { released.append(value) }
        #expect(released == expected.map(\.1))
        #expect(heap.isEmpty)
    }
}
