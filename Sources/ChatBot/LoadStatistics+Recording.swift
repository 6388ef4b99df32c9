import QuicEngine

/// How sends, acknowledgements and deliveries are counted: one copy for every protocol's load.
extension LoadStatistics {
    /// A room message went out.
    mutating func recordSent(measured: Bool) {
        sent += 1
        recentSent += 1
        if measured {
            sentMeasured += 1
            pendingMeasured += 1
        }
    }

    /// The sender's own confirmation of a message arrived (qchat's `ack`, IRC's echo).
    mutating func recordAcknowledged(measured: Bool) {
        acknowledged += 1
        if measured { pendingMeasured -= 1 }
    }

    /// A connection was lost and its client moves: the reason is counted (the first five kinds).
    mutating func countMoveReason(_ reason: String) {
        if let index = moveReasons.firstIndex(where: { $0.reason == reason }) {
            moveReasons[index].count += 1
        } else if moveReasons.count < 5 {
            moveReasons.append((reason, 1))
        }
    }

    /// A load message reached a receiver, live or (`replayed`) in the replay of its re-join after
    /// a move. A measured one is checked against what the receiver has `seen` (by `key`, its room
    /// seq) and timed from its intended send time; every one is checked for order by its
    /// per-sender sequence number.
    ///
    /// The rule for replays: a replayed message the receiver has not seen fills what it missed
    /// while it moved, and is delivered (timed like any other: the move is part of its latency);
    /// one it has seen already is neither delivered again nor a duplicate: a duplicate is the
    /// server delivering one event twice, and a replay is history the receiver asked for with
    /// `since`. (With `since` = the last seq it had, the server replays nothing it had; the count
    /// of those that come anyway, ``replayedAlreadySeen``, would show a server that does.) A live
    /// message already seen, through a replay or live, is a duplicate.
    mutating func recordDelivery(of load: LoadMessageText, key: Int64, measured: Bool, replayed: Bool = false, seen: inout SeenSet,
                                 lastSeqFromSlot: inout [Int: Int], now: MonotonicTime) {
        deliveredAll += 1
        if measured {
            guard seen.insert(key) else {
                if replayed { replayedAlreadySeen += 1 } else { duplicates += 1 }
                return
            }
            let latency = (now - MonotonicTime(nanoseconds: load.intended)).nanoseconds
            delivered += 1
            if replayed { replayedDelivered += 1 }
            recentDelivered += 1
            self.latency.record(latency)
            recentLatency.record(latency)
        }
        if let last = lastSeqFromSlot[load.slot], load.seq <= last {
            if measured { outOfOrder += 1 }
        } else {
            lastSeqFromSlot[load.slot] = load.seq
        }
    }
}
