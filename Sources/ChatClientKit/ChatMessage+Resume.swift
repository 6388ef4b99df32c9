import ChatProtocol

extension ChatMessage {
    /// The seq this message shows its receiver has had every event of its room up to, for the
    /// `since` of a re-join after a reconnect: a room event's seq, never an `ack`'s. A node of
    /// several acknowledges a message once it is stored, possibly before it has delivered the
    /// events stored just before it (PROTOCOL.md section 10), so an ack's seq can run ahead of
    /// what arrived, and a `since` taken from it would skip those events.
    public var resumeSeq: Int64? { messageType == .ack ? nil : seq }
}
