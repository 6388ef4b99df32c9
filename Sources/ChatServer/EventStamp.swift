/// The `ts` of a room event as stored in Redis (an encoded chat message): what the delay from a
/// node making an event to its delivery on another is measured from
/// (`qchat_cluster_event_delay_seconds`), without decoding the message on the delivery path.
enum EventStamp {
    private static let key = Array(#","ts":"#.utf8)

    /// The digits after the message's `,"ts":`, looked for from the end (the key follows `text`
    /// and `seq` and precedes a few short fields). The bytes cannot occur inside a JSON string,
    /// where every quote is escaped. Nil when there is none, or no digits after it.
    static func milliseconds(in payload: [UInt8]) -> Int64? {
        guard payload.count > key.count else { return nil }
        var start = payload.count - key.count
        while start >= 0 {
            if payload[start] == key[0], payload[start..<(start + key.count)].elementsEqual(key) {
                return digits(in: payload, from: start + key.count)
            }
            start -= 1
        }
        return nil
    }

    private static func digits(in payload: [UInt8], from first: Int) -> Int64? {
        var value: Int64 = 0
        var index = first
        while index < payload.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(payload[index]) {
            guard value <= (Int64.max - 9) / 10 else { return nil }
            value = value * 10 + Int64(payload[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > first ? value : nil
    }
}
