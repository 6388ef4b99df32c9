/// One stored room event: its seq and its encoded bytes (the node encodes once, stores and
/// publishes those bytes, and every node fans them out as they are).
public struct RoomEvent: Hashable, Sendable {
    public var seq: Int64
    public var payload: [UInt8]

    public init(seq: Int64, payload: [UInt8]) {
        self.seq = seq
        self.payload = payload
    }

    /// A published "seq payload" message; nil when it is not one.
    public init?(published message: [UInt8]) {
        guard let space = message.firstIndex(of: UInt8(ascii: " ")), space > 0, space <= 19,
              let seq = Int64(String(decoding: message[..<space], as: UTF8.self)), seq > 0 else { return nil }
        self.init(seq: seq, payload: Array(message[(space + 1)...]))
    }
}

/// What appending an event came to.
public struct RoomAppend: Hashable, Sendable {
    public var seq: Int64
    /// The dedupe key was known: the event had been stored before (a resend) and was not again.
    public var duplicate: Bool

    public init(seq: Int64, duplicate: Bool) {
        self.seq = seq
        self.duplicate = duplicate
    }
}

/// Why a room-store operation has no result.
public enum RoomStoreError: Error, Hashable, Sendable {
    /// Redis could not be reached or did not answer: nothing is known to be stored. The caller
    /// reports `unavailable`; a resend with the same dedupe key is safe.
    case unavailable(String)
    /// Redis answered with an error, or with something this code does not understand.
    case rejected(String)
    /// The request broke a documented limit and was not sent.
    case tooLarge(String)
}
