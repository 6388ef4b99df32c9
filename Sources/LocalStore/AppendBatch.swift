import ChatProtocol
import ChatServerCore

/// Room events as the loop hands them to the worker: their bytes with the seq, decoded into
/// stored rows only on the worker's thread.
public struct AppendBatch: Sendable, Equatable {
    public struct Event: Sendable, Equatable {
        public let room: String
        public let seq: Int64
        public let kind: StoredEventKind
        /// The event as members received it (JSON, no LF).
        public let payload: [UInt8]
        /// `PEER:ID` of a `msg` with an id: stored as its receipt.
        public let dedupe: String?
    }

    public var events: [Event] = []
    /// Room → its new reserved seq.
    public var reservations: [String: Int64] = [:]
    /// Changes of room settings and server bans: those its events announce, and those no event does.
    public var policies: [PolicyChange] = []
    /// Receipts of `dm`s (a room message's receipt comes of its event).
    public var receipts: [MessageReceipt] = []

    public init(events: [Event] = [], reservations: [String: Int64] = [:], policies: [PolicyChange] = [],
                receipts: [MessageReceipt] = []) {
        self.events = events
        self.reservations = reservations
        self.policies = policies
        self.receipts = receipts
    }

    public var isEmpty: Bool { events.isEmpty && reservations.isEmpty && policies.isEmpty && receipts.isEmpty }

    mutating func merge(_ other: AppendBatch) {
        events += other.events
        reservations.merge(other.reservations) { max($0, $1) }
        policies += other.policies
        receipts += other.receipts
    }

    /// The rows to store: an event whose bytes do not decode (never made by the core) is left out.
    func decoded() -> RoomLogBatch {
        var batch = RoomLogBatch(receipts: receipts, reservations: reservations)
        batch.events.reserveCapacity(events.count)
        for event in events {
            guard let message = try? ChatMessage.decode(event.payload) else { continue }
            let stored = StoredEvent(
                room: event.room, seq: event.seq, ts: message.ts ?? 0, kind: event.kind, sender: message.sender, text: message.text,
                id: message.id, account: message.account, target: message.to, mode: message.mode, file: message.file,
                size: message.size, sha256: message.sha256, ref: message.ref)
            batch.events.append(stored)
            if let key = event.dedupe, let colon = key.firstIndex(of: ":") {
                batch.receipts.append(MessageReceipt(peer: String(key[..<colon]), id: String(key[key.index(after: colon)...]),
                                                     room: event.room, seq: event.seq, ts: stored.ts))
            }
        }
        return batch
    }
}
