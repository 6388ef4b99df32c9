import ChatProtocol

/// Room events on their way to the members: every request that makes one hands a
/// ``RoomEventDraft`` to ``record(_:now:into:)``, which makes it an
/// ``ServerAction/appendRoomEvent(_:)`` for the store (one server's local store or the cluster's
/// shared log); it reaches the members when the log delivers it back
/// (``roomEventDelivered(_:now:)``), on this node as on every other.
extension ChatServerState {
    /// Asks the log to store the drafts, unless too many appends wait already (then each fails).
    func record(_ drafts: [RoomEventDraft], now: Int64, into out: inout [ServerAction]) {
        guard !drafts.isEmpty else { return }
        for draft in drafts {
            // Redis (or the room's feed) slower than the clients: beyond the bound nothing more
            // waits in memory.
            guard pendingAppends.count + heldAckCount < configuration.pendingAppendLimit else {
                notStoredWarnings.note(room: draft.event.room, error: "room appends at their limit (\(configuration.pendingAppendLimit))",
                                       now: now, into: &out)
                appendFailed(draft.purpose, room: draft.event.room, origin: draft.origin, into: &out)
                continue
            }
            nextSharedToken += 1
            let token = nextSharedToken
            let encoding = EncodingAroundSeq(draft.liveMessage(seq: 0))
            pendingAppends[token] = PendingAppend(room: draft.event.room, origin: draft.origin?.id, purpose: draft.purpose,
                                                  ts: draft.event.ts, settingsBefore: draft.settingsBefore)
            var dedupe: String?
            if case .message(let id?) = draft.purpose, let origin = draft.origin { dedupe = "\(origin.peer):\(id)" }
            out.append(.appendRoomEvent(RoomEventAppend(
                token: token, room: draft.event.room, kind: draft.event.kind, beforeSeq: encoding.beforeSeq,
                afterSeq: encoding.afterSeq, origin: draft.origin?.id, dedupe: dedupe, membership: draft.membership,
                policy: draft.policy, ts: draft.event.ts)))
        }
    }

    /// The origin's part once its event is stored: the `ack` of a `msg` or an upload (with a
    /// shared log in its place in the room's order, ``acknowledgeInOrder``; `acknowledged`: it
    /// went out already, with its event). (A joiner's catch-up, with a shared log, starts here too.)
    func appendStored(_ purpose: AppendPurpose, room: String, seq: Int64, duplicate: Bool, ts: Int64, origin: ClientSession?,
                      acknowledged: Bool = false, now: Int64, into out: inout [ServerAction]) {
        switch purpose {
        case .message, .upload, .loginRename:
            guard !acknowledged, let answer = HeldAck.answer(purpose, room: room, seq: seq, ts: ts) else { return }
            guard let origin else { return }
            acknowledgeInOrder(HeldAck(room: room, seq: seq, client: origin.id, answer: answer), into: &out)
        case .join:
            if let origin { joinStored(room, seq: seq, adopted: duplicate, session: origin, now: now, into: &out) }
        case .part, .announcement, .claim, .notice, .departure:
            break
        }
    }

    /// A `claim` another claim came before (a shared log, through another node): nothing was
    /// stored; the room's owner is `owner`, in the cache at once (this node had taken its own
    /// claim for granted), and the asker is told `room-owned`, as when the cache knew.
    func claimRefused(_ room: String, owner: String, id: String?, origin: ClientSession?, into out: inout [ServerAction]) {
        policies.rooms[room]?.apply(.owner(room: room, account: owner))
        out.append(.log(.info, "claim refused", ["room": room, "owner": owner]))
        guard let origin else { return }
        sendError(.roomOwned, "room '\(room)' is owned by '\(owner)'", id: id, room: room, to: origin, into: &out)
    }

    /// The origin's part when its event could not be stored: `error unavailable` with the
    /// request's id, so the client tries again (a `msg`: resends the same id, safely); a message
    /// known not to be stored (`stored` false) says so (docs/PROTOCOL.md section 10).
    func appendFailed(_ purpose: AppendPurpose, room: String, origin: ClientSession?, stored: Bool? = false,
                      into out: inout [ServerAction]) {
        switch purpose {
        case .message(let id):
            guard let origin else { return }
            sendError(.unavailable, "the message could not be stored; send it again", id: id, room: room, stored: stored, to: origin,
                      into: &out)
        case .join:
            guard let origin else { return }
            joinFailed(room, session: origin, into: &out)
        case .part(let id):
            guard let origin else { return }
            partFailed(room, id: id, session: origin, into: &out)
        case .announcement(let id), .claim(let id):
            // With a shared store the change was not stored either: the cache forgets it.
            readRoomSettings(room, then: .refresh, into: &out)
            guard let origin else { return }
            sendError(.unavailable, "the change could not be stored; try again", id: id, room: room, to: origin, into: &out)
        case .upload(let key, let file):
            out.append(.endFileStream(key, fileError(.unavailable, "the server cannot store this file now", id: file.uploadID),
                                      stopSending: false))
        case .loginRename:
            if let origin { loginRenamed(origin, into: &out) }
        case .notice, .departure:
            break
        }
    }
}
