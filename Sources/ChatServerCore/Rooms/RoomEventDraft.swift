import ChatProtocol

/// A room event a request makes, before it has its seq, with what its origin waits for.
struct RoomEventDraft {
    /// `seq` is 0 until the event is stored.
    var event: StoredEvent
    /// What members get besides the stored fields, computed by the node that makes the event
    /// (for the state after it): the operators present (`ops`), the nicks a ban takes out of the
    /// room (`members`). In a shared log they are part of the stored bytes, so a replay shows them
    /// as they were; in a local store they are live only.
    var ops: [String]? = nil
    var removing: [String]? = nil
    /// The local connection whose request made it.
    var origin: ClientSession?
    var purpose: AppendPurpose
    /// With a shared log: the change of the room's members it makes there, atomically.
    var membership: MembershipChange? = nil
    /// With a shared log: the change of the room's settings it announces, stored with it.
    var policy: PolicyChange? = nil
    /// The room's settings before `policy` was applied to the cache, to put back if the event is not stored.
    var settingsBefore: RoomSettings? = nil

    /// The event as members receive it live.
    func liveMessage(seq: Int64) -> ChatMessage {
        var stored = event
        stored.seq = seq
        var message = stored.message(replay: false)
        message.ops = ops
        message.members = removing
        return message
    }
}

/// What the origin of a room event waits for once the event is stored.
enum AppendPurpose {
    /// A `msg`: its `ack` (with the seq), or `error unavailable` with its id.
    case message(id: String?)
    /// The `joined` of a `join`: in a shared log, the joiner catches up once the seq is known.
    case join
    /// The `left` of a `part`: in a shared log the leaver waits for its own `left`.
    case part(id: String?)
    /// A moderation event; `error unavailable` to the asker when it cannot be stored.
    case announcement(id: String?)
    /// A `claim`'s `op` `owner`; with a shared log stored only while the room has no owner
    /// (another claim through another node may come first): `room-owned` to the asker then.
    case claim(id: String?)
    /// A room file's event: the upload's `ack` on its stream carries the seq.
    case upload(FileStreamKey, StoredFile)
    /// Shutdown, renames, another node's leftovers: nobody waits; a failure is logged.
    case notice
    /// A login's rename (a shared log): the `account logged-in` follows the last one's delivery.
    case loginRename
    /// The `left` of a connection gone from this node: nobody waits. Its origin is the gone
    /// connection, so the log's delivery of it is known as this node's own (its room mates here
    /// were told `offline` at once), and a deferred close does not wait for it.
    case departure

    /// Whether the event reaches the members only once stored, even in a local store (a `msg` is
    /// never shown without a commit: its sender resends it).
    var needsCommit: Bool {
        if case .message = self { return true }
        return false
    }

    var isDeparture: Bool {
        if case .departure = self { return true }
        return false
    }

    /// Whether the origin does not get its own event (it gets an `ack` instead).
    var excludesOrigin: Bool {
        switch self {
        case .message, .upload: return true
        case .join, .part, .announcement, .claim, .notice, .loginRename, .departure: return false
        }
    }
}

/// A shared-log append on its way, by token.
struct PendingAppend {
    let room: String
    let origin: ClientID?
    let purpose: AppendPurpose
    let ts: Int64
    /// Its event was delivered before the reply, with this seq, and its ack went out then.
    var acknowledgedSeq: Int64? = nil
    /// The room's settings before the change its event announces (``RoomEventDraft/settingsBefore``).
    var settingsBefore: RoomSettings? = nil
}
