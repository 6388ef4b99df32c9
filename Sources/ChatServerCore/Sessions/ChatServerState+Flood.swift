import ChatProtocol

/// The flood limit of PROTOCOL.md section 4: a token bucket per client over every counted
/// message (chat stream, and presence stream except typing), malformed ones included.
extension ChatServerState {
    /// Takes a token for one counted message. Without one, the message is dropped: the client
    /// gets `rate-limited`, and enough of those within the window close it with FLOODING.
    func admitCountedMessage(from session: ClientSession, id: String?, now: Int64, into out: inout [ServerAction]) -> Bool {
        if session.floodBucket.take(now: now) { return true }
        sendError(.rateLimited, "too many messages; this one was dropped", id: id, to: session, into: &out)
        strikeForFlooding(session, now: now, into: &out)
        return false
    }

    /// One more `rate-limited` for the client: enough within the window close it with FLOODING.
    func strikeForFlooding(_ session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        if session.rateLimitStrikes.strike(now: now) {
            close(session, with: .flooding, reason: "kept flooding after rate-limited", now: now, into: &out)
        }
    }
}
