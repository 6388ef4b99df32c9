/// One stored room event: its seq, its meta and its encoded bytes (the node encodes once,
/// stores and publishes those bytes, and every node fans them out as they are).
public struct RoomEvent: Hashable, Sendable {
    public var seq: Int64
    /// What the node that made the event says about it besides its bytes (its kind and origin):
    /// one token without spaces, `-` when none; opaque to this module.
    public var meta: [UInt8]
    public var payload: [UInt8]

    public init(seq: Int64, meta: [UInt8] = RoomEvent.noMeta, payload: [UInt8]) {
        self.seq = seq
        self.meta = meta
        self.payload = payload
    }

    public static let noMeta: [UInt8] = [UInt8(ascii: "-")]
    /// The most bytes a meta token may have.
    public static let maxMetaBytes = 128

    /// A published "seq meta payload" message; nil when it is not one.
    public init?(published message: [UInt8]) {
        let space = UInt8(ascii: " ")
        guard let first = message.firstIndex(of: space), first > 0, first <= 19,
              let seq = Int64(String(decoding: message[..<first], as: UTF8.self)), seq > 0,
              let second = message[(first + 1)...].firstIndex(of: space), second > first + 1,
              second - first - 1 <= Self.maxMetaBytes else { return nil }
        self.init(seq: seq, meta: Array(message[(first + 1)..<second]), payload: Array(message[(second + 1)...]))
    }
}

/// What appending an event came to.
public struct RoomAppend: Hashable, Sendable {
    public var seq: Int64
    /// The dedupe key was known: the event had been stored before (a resend) and was not again.
    public var duplicate: Bool
    /// A ``RoomSettingsChange/setIfAbsent(field:value:)`` found its field set: that value. Nothing
    /// was stored (seq 0).
    public var existing: String?
    /// The store lost data the caller knew it had (the room's counter below the seq the caller
    /// knew, or the store's epoch changed): nothing was stored (seq 0).
    public var storeLost: Bool

    public init(seq: Int64, duplicate: Bool, existing: String? = nil, storeLost: Bool = false) {
        self.seq = seq
        self.duplicate = duplicate
        self.existing = existing
        self.storeLost = storeLost
    }
}

/// Why a room-store operation has no result.
public enum RoomStoreError: Error, Hashable, Sendable {
    /// Redis did not answer (the connection dropped with the command sent, or the reply was
    /// overdue): it may or may not have run it. The caller reports `unavailable`; a resend with
    /// the same dedupe key is safe.
    case unavailable(String)
    /// Redis did not run it: nothing was sent (not connected), or Redis refused it before running
    /// it (LOADING, CLUSTERDOWN, READONLY, ... : "not now"). Nothing is stored; a resend is safe.
    case notStored(String)
    /// Redis answered with an error, or with something this code does not understand.
    case rejected(String)
    /// The request broke a documented limit and was not sent.
    case tooLarge(String)

    /// "Not now": worth trying again (a read is retried while Redis comes back).
    public var isTransient: Bool {
        switch self {
        case .unavailable, .notStored: true
        case .rejected, .tooLarge: false
        }
    }

    /// Whether nothing of it can have been stored.
    public var isKnownNotStored: Bool {
        switch self {
        case .notStored, .tooLarge: true
        case .unavailable, .rejected: false
        }
    }
}
