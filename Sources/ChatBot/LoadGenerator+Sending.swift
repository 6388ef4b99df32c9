import ChatProtocol
import QuicEngine

/// Room messages and typing indicators on the open-loop schedule `LoadRun.pump` runs.
extension LoadGenerator {
    func sendRoomMessage(intended: MonotonicTime) {
        guard let client = nextReady(after: &senderCursor, forMessage: true) else {
            stats.skippedNoClient += 1
            return
        }
        nextSenderSeq[client.slot] += 1
        let measured = isMeasured(intended)
        let text = LoadMessageText(slot: client.slot, seq: nextSenderSeq[client.slot], intended: intended.nanoseconds)
        let id = client.nextMessageID
        client.nextMessageID += 1
        let encoded = text.encoded(size: options.size)
        client.pending[id] = LoadClient.Pending(intended: intended, measured: measured, text: encoded)
        client.session.send(.msg(room: client.room, text: encoded, id: String(id)))
        stats.recordSent(measured: measured)
    }

    /// Typing alternates start and stop per client, so each indicator can be told from the last.
    func sendTyping(intended: MonotonicTime) {
        guard let client = nextReady(after: &typistCursor) else { return }
        client.isTyping.toggle()
        if options.typingOnStream {
            client.session.sendPresence(.typing(room: client.room, isTyping: client.isTyping))
        } else if !client.session.sendTyping(room: client.room, typing: client.isTyping) {
            stats.typingRefused += 1
            return
        }
        let measured = isMeasured(intended)
        client.lastTyping[client.isTyping] = LoadClient.TypingSent(intended: intended, measured: measured)
        stats.recentTyping += 1
        if measured {
            stats.typingSent += 1
            stats.typingExpected += max(0, (joinedPerRoom[client.room] ?? 1) - 1)
        }
    }

    /// The next joined client in round-robin order from `cursor`; for a message, one that has no
    /// message answered `unavailable` waiting (it keeps its own order).
    private func nextReady(after cursor: inout Int, forMessage: Bool = false) -> LoadClient? {
        LoadRun.nextReady(in: current, after: &cursor) { $0.state == .joined && (!forMessage || $0.unavailablePending.isEmpty) }
    }
}
