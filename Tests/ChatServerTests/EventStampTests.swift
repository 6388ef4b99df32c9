import ChatProtocol
import Testing

@testable import ChatServer

/// The `ts` read from a stored room event without decoding it (qchat_cluster_event_delay_seconds).
@Suite struct EventStampTests {
    /// As the nodes store events: the message up to `"seq":`, the seq, then `,"ts":...}`.
    @Test func readsTheStampOfAStoredEvent() {
        let message = ChatMessage(type: "msg", text: #"say ","ts":1 to me \"ts\":2"#, sender: "alice", room: "lobby", id: "a-1",
                                  seq: 42, ts: 1_765_000_000_123, to: "bob")
        #expect(EventStamp.milliseconds(in: message.encodedDatagram()) == 1_765_000_000_123)
    }

    /// A text that holds the key's bytes cannot pose as the stamp: inside a string every quote is escaped.
    @Test func aTextCannotPoseAsTheStamp() {
        let message = ChatMessage(type: "msg", text: #"","ts":1}"#, sender: "alice", room: "lobby")
        #expect(EventStamp.milliseconds(in: message.encodedDatagram()) == nil)
    }

    @Test func noStampOrNoDigitsIsNil() {
        #expect(EventStamp.milliseconds(in: Array(#"{"type":"msg","ts":}"#.utf8)) == nil)
        #expect(EventStamp.milliseconds(in: Array(#"{"type":"msg","ts":"#.utf8)) == nil)
        #expect(EventStamp.milliseconds(in: []) == nil)
        #expect(EventStamp.milliseconds(in: Array(#"{"type":"msg","ts":99999999999999999999999}"#.utf8)) == nil)
    }
}
