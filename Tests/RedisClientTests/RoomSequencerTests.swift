import ClusterStore
import Testing

/// The per-room sequencer: live events and fills in, each event out once, in seq order.
@Suite struct RoomSequencerTests {
    private func event(_ seq: Int64) -> RoomEvent { RoomEvent(seq: seq, payload: Array("e\(seq)".utf8)) }

    private func delivered(_ actions: [RoomSequencer.Action]) -> [Int64] {
        actions.compactMap { if case .deliver(let event) = $0 { return event.seq } else { return nil } }
    }

    /// In order: each live event is delivered at once; duplicates and old events are dropped.
    @Test func inOrderAndDuplicates() {
        var sequencer = RoomSequencer()
        #expect(sequencer.start(lastSeq: 10).isEmpty)
        #expect(delivered(sequencer.receive(event(11))) == [11])
        #expect(delivered(sequencer.receive(event(12))) == [12])
        #expect(sequencer.receive(event(12)).isEmpty)
        #expect(sequencer.receive(event(3)).isEmpty)
        #expect(sequencer.delivered == 12)
    }

    /// Events before the baseline is known are held; those after it are delivered at start.
    @Test func eventsBeforeStart() {
        var sequencer = RoomSequencer()
        #expect(sequencer.receive(event(5)).isEmpty)
        #expect(sequencer.receive(event(6)).isEmpty)
        #expect(delivered(sequencer.start(lastSeq: 5)) == [6])
        #expect(sequencer.bufferedCount == 0)
    }

    /// A gap holds what follows it and asks for a fill from the last delivered seq; the fill's
    /// events come first, then the held ones, nothing twice.
    @Test func gapIsFilledBeforeAnythingLater() {
        var sequencer = RoomSequencer(fillLimit: 100)
        _ = sequencer.start(lastSeq: 0)
        _ = sequencer.receive(event(1))
        #expect(sequencer.receive(event(4)) == [.fill(after: 1, limit: 100)])
        #expect(sequencer.receive(event(5)).isEmpty)
        #expect(sequencer.bufferedCount == 2)
        // The fill reads to the stream's end: 2...5 (4 and 5 were also held).
        let actions = sequencer.filled([event(2), event(3), event(4), event(5)], limit: 100)
        #expect(delivered(actions) == [2, 3, 4, 5])
        #expect(sequencer.bufferedCount == 0)
        #expect(delivered(sequencer.receive(event(6))) == [6])
    }

    /// The event right after the last delivered one goes out even while a fill runs, and the
    /// fill then skips it.
    @Test func nextEventDuringFill() {
        var sequencer = RoomSequencer()
        _ = sequencer.start(lastSeq: 0)
        #expect(sequencer.restored() == [.fill(after: 0, limit: 1000)])
        #expect(delivered(sequencer.receive(event(1))) == [1])
        #expect(delivered(sequencer.filled([event(1), event(2)], limit: 1000)) == [2])
    }

    /// A fill that returns a full chunk asks for the next one, until a short chunk ends it.
    @Test func fillsInChunks() {
        var sequencer = RoomSequencer(fillLimit: 3)
        _ = sequencer.start(lastSeq: 0)
        #expect(sequencer.receive(event(8)) == [.fill(after: 0, limit: 3)])
        var actions = sequencer.filled([event(1), event(2), event(3)], limit: 3)
        #expect(delivered(actions) == [1, 2, 3])
        #expect(actions.last == .fill(after: 3, limit: 3))
        actions = sequencer.filled([event(4), event(5), event(6)], limit: 3)
        #expect(actions.last == .fill(after: 6, limit: 3))
        actions = sequencer.filled([event(7), event(8)], limit: 3)
        #expect(delivered(actions) == [7, 8])
        #expect(sequencer.delivered == 8)
    }

    /// A restored subscription fills to the end even with no later event to show a gap; a
    /// restore during a fill makes another fill follow it.
    @Test func restoredSubscriptionFills() {
        var sequencer = RoomSequencer()
        _ = sequencer.start(lastSeq: 20)
        #expect(sequencer.restored() == [.fill(after: 20, limit: 1000)])
        #expect(sequencer.restored().isEmpty)
        let actions = sequencer.filled([event(21)], limit: 1000)
        #expect(delivered(actions) == [21])
        #expect(actions.last == .fill(after: 21, limit: 1000))
        #expect(sequencer.filled([], limit: 1000).isEmpty)
    }

    /// Events the stream no longer has are reported as skipped, then delivery goes on.
    @Test func trimmedHistoryIsSkipped() {
        var sequencer = RoomSequencer()
        _ = sequencer.start(lastSeq: 10)
        _ = sequencer.receive(event(500))
        let actions = sequencer.filled([event(400), event(401)] + (402...500).map(event), limit: 1000)
        #expect(actions.first == .skipped(after: 10, before: 400))
        #expect(delivered(actions) == Array(400...500))
    }

    /// A full buffer is dropped (the stream has it all) and the fill brings everything back.
    @Test func bufferIsBounded() {
        var sequencer = RoomSequencer(maxBufferedEvents: 10)
        _ = sequencer.start(lastSeq: 0)
        #expect(sequencer.receive(event(2)) == [.fill(after: 0, limit: 1000)])
        for seq in 3...12 { _ = sequencer.receive(event(Int64(seq))) }
        #expect(sequencer.bufferedCount <= 10)
        let actions = sequencer.filled((1...12).map(event), limit: 1000)
        #expect(delivered(actions) == Array(1...12))
        var bytes = RoomSequencer(maxBufferedBytes: 10)
        _ = bytes.start(lastSeq: 0)
        _ = bytes.receive(RoomEvent(seq: 5, payload: [UInt8](repeating: 1, count: 11)))
        #expect(bytes.bufferedCount == 0)
    }

    /// A failed fill is asked again by `retry`, not before.
    @Test func failedFillIsRetried() {
        var sequencer = RoomSequencer()
        _ = sequencer.start(lastSeq: 0)
        #expect(sequencer.receive(event(3)) == [.fill(after: 0, limit: 1000)])
        sequencer.fillFailed()
        #expect(sequencer.receive(event(4)) == [.fill(after: 0, limit: 1000)])
        sequencer.fillFailed()
        #expect(sequencer.retry() == [.fill(after: 0, limit: 1000)])
        #expect(delivered(sequencer.filled((1...4).map(event), limit: 1000)) == [1, 2, 3, 4])
        #expect(sequencer.retry().isEmpty)
    }
}
