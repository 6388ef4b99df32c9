import ChatClientKit
import ChatProtocol
import QuicEngine
import Testing

struct OutboxTests {
    static let start = FloodPacerTests.start

    static func messages(_ count: Int, room: String = "lobby") -> [ChatMessage] {
        (1...count).map { .msg(room: room, text: "line \($0)", id: "id-\($0)") }
    }

    /// A fresh outbox sends in order, at most `window` unanswered requests at a time; answers
    /// free the window.
    @Test func windowLimitsWhatIsUnanswered() {
        var outbox = Outbox(now: Self.start)
        for message in Self.messages(8) { outbox.enqueue(message) }
        let first = outbox.takeDue(now: Self.start)
        #expect(first.map(\.id) == ["id-1", "id-2", "id-3", "id-4", "id-5"])
        #expect(outbox.takeDue(now: Self.start).isEmpty)
        let answered = outbox.answered(id: "id-1")
        #expect(answered?.id == "id-1")
        #expect(outbox.takeDue(now: Self.start).map(\.id) == ["id-6"])
        #expect(outbox.pendingMessages.count == 7)
    }

    /// 40 messages (a paste) go out paced: never more than the server's burst at once, all of them
    /// in order, and a refused one goes back in its place and is sent again.
    @Test func refusedMessagesGoBackInOrder() {
        var outbox = Outbox(now: Self.start)
        outbox.connected(now: Self.start, spent: 2)
        for message in Self.messages(40) { outbox.enqueue(message) }
        var now = Self.start
        var written: [String] = []
        var refusedOnce = false
        while !outbox.isEmpty {
            for entry in outbox.takeDue(now: now) {
                written.append(entry.id)
                if entry.id == "id-7" && !refusedOnce {
                    refusedOnce = true
                    let refused = outbox.refused(id: entry.id, now: now)
                    #expect(refused)
                } else {
                    outbox.answered(id: entry.id)
                }
            }
            guard let deadline = outbox.nextDeadline(now: now) else { break }
            now = max(now, deadline)
        }
        #expect(written.filter { $0 != "id-7" } == (1...40).map { "id-\($0)" }.filter { $0 != "id-7" })
        #expect(written.filter { $0 == "id-7" }.count == 2)
        #expect(outbox.isEmpty)
        // 18 at once, then the refusal slowed the pace down: the rest took several seconds.
        #expect((now - Self.start).seconds > 5)
    }

    /// A lost connection puts what was unanswered back before what still waits, in the person's
    /// order; a `status` is not resent (the next hello carries it).
    @Test func lostConnectionResendsInOrder() {
        var outbox = Outbox(now: Self.start)
        outbox.enqueue(.join(room: "dev"))
        outbox.enqueue(.status("away"), on: .presence)
        for message in Self.messages(3, room: "dev") { outbox.enqueue(message) }
        _ = outbox.takeDue(now: Self.start)
        outbox.enqueue(.nick("bob2"))
        outbox.connectionLost { $0.type != "status" }
        let again = outbox.takeDue(now: Self.start + .seconds(10))
        #expect(again.map(\.message.type) == ["join", "msg", "msg", "msg", "nick"])
    }

    /// Re-joins after a reconnect go before everything that waits.
    @Test func firstEntriesGoFirst() {
        var outbox = Outbox(now: Self.start)
        outbox.enqueue(.msg(room: "dev", text: "typed offline", id: "m"))
        outbox.enqueueFirst([.join(room: "dev"), .join(room: "ops")])
        #expect(outbox.takeDue(now: Self.start).map { $0.message.room ?? "" } == ["dev", "ops", "dev"])
    }

    /// Answers without an id find their request: the oldest in flight that matches.
    @Test func answersByMatching() {
        var outbox = Outbox(now: Self.start)
        outbox.enqueue(.join(room: "dev"))
        outbox.enqueue(.join(room: "ops"))
        _ = outbox.takeDue(now: Self.start)
        let ops = outbox.answered { $0.type == "join" && $0.room == "ops" }
        #expect(ops?.message.room == "ops")
        #expect(outbox.inFlight.map { $0.message.room } == ["dev"])
        let none = outbox.answered { $0.type == "part" }
        #expect(none == nil)
    }

    /// Every request gets an id, so an error can name it; an unknown id is nobody's.
    @Test func everyRequestHasAnId() {
        var outbox = Outbox(now: Self.start)
        let entry = outbox.enqueue(.part(room: "dev"))
        #expect(entry?.id.isEmpty == false)
        let refused = outbox.refused(id: "unknown", now: Self.start)
        #expect(!refused)
        let answered = outbox.answered(id: "unknown")
        #expect(answered == nil)
    }

    /// The line holds at most `capacity` requests; re-joins are never refused.
    @Test func capacityIsEnforced() {
        var outbox = Outbox(now: Self.start)
        for index in 0..<Outbox.capacity { outbox.enqueue(.msg(room: "lobby", text: "\(index)", id: "m\(index)")) }
        #expect(outbox.isFull)
        let refused = outbox.enqueue(.msg(room: "lobby", text: "one too many", id: "x"))
        #expect(refused == nil)
        let rejoin = outbox.enqueue(.join(room: "dev"), first: true)
        #expect(rejoin != nil)
    }

    /// A request never answered stops holding its place in the window after the timeout.
    @Test func unansweredRequestsTimeOutOfTheWindow() {
        var outbox = Outbox(now: Self.start)
        for message in Self.messages(6) { outbox.enqueue(message) }
        #expect(outbox.takeDue(now: Self.start).count == 5)
        let deadline = outbox.nextDeadline(now: Self.start)
        #expect(deadline == Self.start + Outbox.answerTimeout)
        #expect(outbox.takeDue(now: Self.start + Outbox.answerTimeout).map(\.id) == ["id-6"])
    }

    /// `unavailable` (a node that cannot reach its store): the message goes back in its place and
    /// is sent again after 1 s, then 2 s, ... with what follows it waiting behind; after ten such
    /// answers it is given up.
    @Test func unavailableMessagesAreSentAgainLater() {
        var outbox = Outbox(now: Self.start)
        for message in Self.messages(3) { outbox.enqueue(message) }
        #expect(outbox.takeDue(now: Self.start).map(\.id) == ["id-1", "id-2", "id-3"])
        #expect(outbox.unavailable(id: "id-1", now: Self.start).kept)
        outbox.answered(id: "id-2")
        #expect(outbox.unavailable(id: "id-3", now: Self.start).kept)
        #expect(outbox.takeDue(now: Self.start + .milliseconds(500)).isEmpty, "not before 1 s")
        #expect(outbox.nextDeadline(now: Self.start) == Self.start + .seconds(1))
        #expect(outbox.takeDue(now: Self.start + .seconds(1)).map(\.id) == ["id-1", "id-3"])
        #expect(outbox.unavailable(id: "id-1", now: Self.start + .seconds(1)).kept)
        #expect(outbox.nextDeadline(now: Self.start + .seconds(1)) == Self.start + .seconds(3), "then 2 s")
        var now = Self.start + .seconds(3)
        var givenUp: Outbox.Entry?
        for _ in 0..<20 where givenUp == nil {
            _ = outbox.takeDue(now: now)
            let answer = outbox.unavailable(id: "id-1", now: now)
            if !answer.kept { givenUp = answer.entry }
            now = now + .seconds(20)
        }
        #expect(givenUp?.id == "id-1" && givenUp?.unavailableCount == Outbox.unavailableAttempts)
        #expect(outbox.pendingMessages.map(\.id) == ["id-3"])
    }
}
