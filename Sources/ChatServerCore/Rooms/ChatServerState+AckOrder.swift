import ChatProtocol

/// With a shared log, an `ack` keeps its place in the room's seq order (issue 23, item 18). A
/// client may move its `since` to the seq of an ack, so the ack of seq S must reach it after
/// every event of the room below S that it is going to get, as on one server. The seq comes in
/// the script's reply, the events through the room's feed, on another connection: either may come
/// first. So the ack goes out when this node's delivery of the room reaches S: at once when it
/// already has, else held until it does (``heldAcks``); and when the event itself is delivered
/// before the reply, the event's meta names its append (``SharedRoomEvent/append``), and its ack
/// goes out right there, in the event's place.
extension ChatServerState {
    /// The origin's ack of its event stored with `seq`: now when the room's delivery here has
    /// reached it (or the room is not followed), else when it does.
    func acknowledgeInOrder(_ ack: HeldAck, into out: inout [ServerAction]) {
        guard let delivered = deliveredSequence[ack.room], ack.seq > delivered else {
            return sendAck(ack, into: &out)
        }
        heldAcks[ack.room, default: HeldAcks()].insert(ack)
        heldAckCount += 1
    }

    /// The room's delivery reached `seq`: the acks held up to it go out, in seq order.
    func releaseAcks(of room: String, through seq: Int64, into out: inout [ServerAction]) {
        guard let first = heldAcks[room]?.first, first.seq <= seq else { return }
        let due = heldAcks[room]!.removeFirst(through: seq)
        if heldAcks[room]!.isEmpty { heldAcks[room] = nil }
        heldAckCount -= due.count
        for ack in due { sendAck(ack, into: &out) }
    }

    /// An event of this node's append delivered before the append's reply: its ack goes out now,
    /// in the event's place, and the reply will not send it again.
    func acknowledgeDelivered(_ event: SharedRoomEvent, into out: inout [ServerAction]) {
        guard let token = event.append, let origin = event.origin, var pending = pendingAppends[token], pending.origin == origin,
              pending.room == event.room, pending.acknowledgedSeq == nil, clients[origin] != nil,
              let ack = HeldAck(pending, seq: event.seq) else { return }
        pending.acknowledgedSeq = event.seq
        pendingAppends[token] = pending
        sendAck(ack, into: &out)
    }

    /// Sends an ack whose place has come. A connection catching up with the room (a re-join) gets
    /// it in its catch-up, among the events held for it.
    func sendAck(_ ack: HeldAck, into out: inout [ServerAction]) {
        switch ack.answer {
        case .chat(let payload):
            guard let session = clients[ack.client] else { return }
            if let catchUp = session.catchUp, catchUp.room == ack.room, ack.seq >= (catchUp.liveFrom ?? 0) {
                catchUp.holdAck(seq: ack.seq, payload: payload)
            } else {
                sendChat(payload, to: session, into: &out)
            }
        case .upload(let key, let payload):
            out.append(.endFileStream(key, payload, stopSending: false))
        case .loginRenamed:
            guard let session = clients[ack.client] else { return }
            loginRenamed(session, into: &out)
        }
    }

    /// A room no longer followed: nothing will move its delivery on, so its held acks go now.
    func flushHeldAcks(of room: String, into out: inout [ServerAction]) {
        guard let held = heldAcks.removeValue(forKey: room)?.all else { return }
        heldAckCount -= held.count
        for ack in held { sendAck(ack, into: &out) }
    }

    /// A connection the core closes: of its acks held, those that follow what it got without a
    /// gap go out before the close; the others are dropped (the client sends those messages again
    /// after reconnecting, and the dedupe answers their seqs).
    func releaseAcksOfClosing(_ session: ClientSession, through: inout [String: Int64], into out: inout [ServerAction]) {
        for room in session.rooms.array {
            guard let own = heldAcks[room]?.removeAll(of: session.id), !own.isEmpty else { continue }
            if heldAcks[room]!.isEmpty { heldAcks[room] = nil }
            heldAckCount -= own.count
            for ack in own where DeferredClose.follows(ack.seq, in: room, through: &through) { sendAck(ack, into: &out) }
        }
    }
}

/// One room's acks waiting for their place, in seq order: taken from the front as the room's
/// delivery moves on (a consumed prefix is dropped in one step once it is half of the storage).
struct HeldAcks {
    private var items: [HeldAck] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var first: HeldAck? { isEmpty ? nil : items[head] }
    var all: [HeldAck] { Array(items[head...]) }

    /// Replies of one room come in seq order: appending is the rule, the search the exception.
    mutating func insert(_ ack: HeldAck) {
        guard let last = items.last, !isEmpty, last.seq > ack.seq else { return items.append(ack) }
        let index = items[head...].firstIndex { $0.seq > ack.seq }!
        items.insert(ack, at: index)
    }

    /// The acks with a seq up to `seq`, removed.
    mutating func removeFirst(through seq: Int64) -> ArraySlice<HeldAck> {
        let start = head
        while head < items.count, items[head].seq <= seq { head += 1 }
        let due = items[start..<head]
        if head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return due
    }

    /// The acks of one connection, removed.
    mutating func removeAll(of client: ClientID) -> [HeldAck] {
        let own = items[head...].filter { $0.client == client }
        items = items[head...].filter { $0.client != client }
        head = 0
        return own
    }
}

/// An ack waiting for its place in its room's order.
struct HeldAck {
    let room: String
    let seq: Int64
    let client: ClientID
    let answer: Answer

    enum Answer {
        /// A `msg`'s `ack`, on the chat stream.
        case chat(SharedPayload)
        /// An upload's `ack`, ending its file stream.
        case upload(FileStreamKey, SharedPayload)
        /// One of a login's renames delivered (``ClientSession/loginRenamesLeft``).
        case loginRenamed
    }

    init(room: String, seq: Int64, client: ClientID, answer: Answer) {
        self.room = room
        self.seq = seq
        self.client = client
        self.answer = answer
    }

    /// The ack of an append of a `msg` or an upload stored with `seq`; nil for other purposes.
    init?(_ pending: PendingAppend, seq: Int64) {
        guard let origin = pending.origin, let answer = Self.answer(pending.purpose, room: pending.room, seq: seq, ts: pending.ts)
        else { return nil }
        self.init(room: pending.room, seq: seq, client: origin, answer: answer)
    }

    static func answer(_ purpose: AppendPurpose, room: String, seq: Int64, ts: Int64) -> Answer? {
        switch purpose {
        case .message(let id): .chat(SharedPayload(line: .ack(id: id, room: room, seq: seq, ts: ts)))
        case .upload(let key, let file): .upload(key, SharedPayload(line: .uploadAck(id: file.uploadID, file: file.id, seq: seq, ts: ts)))
        case .loginRename: .loginRenamed
        case .join, .part, .announcement, .claim, .notice, .departure: nil
        }
    }
}
