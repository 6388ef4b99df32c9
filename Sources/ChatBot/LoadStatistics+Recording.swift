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

    /// A load message reached a receiver. A measured one is checked against what the receiver
    /// has `seen` (by `key`, unique in its room) for a second copy and timed from its intended
    /// send time; every one is checked for order by its per-sender sequence number.
    mutating func recordDelivery(of load: LoadMessageText, key: Int64, measured: Bool, seen: inout SeenSet,
                                 lastSeqFromSlot: inout [Int: Int], now: QuicTime) {
        deliveredAll += 1
        if measured {
            guard seen.insert(key) else {
                duplicates += 1
                return
            }
            let latency = (now - QuicTime(nanoseconds: load.intended)).nanoseconds
            delivered += 1
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
