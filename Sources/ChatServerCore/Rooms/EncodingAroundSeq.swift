import ChatProtocol

/// A room event encoded once by the node that makes it, in two halves around the seq that the
/// shared log assigns (docs/CLUSTER.md, "Encode once"): the log stores and publishes
/// `beforeSeq`, the seq in decimal, `afterSeq`, and every node fans those bytes out as they are.
struct EncodingAroundSeq {
    let beforeSeq: [UInt8]
    let afterSeq: [UInt8]

    /// The placeholder the message is encoded with. Inside an encoded JSON string every `"` is
    /// escaped, so `"seq":` followed by it can only be the seq member itself.
    private static let marker = Array("\"seq\":\(Int64.max)".utf8)

    /// `message` without LF; its `seq` is replaced.
    init(_ message: ChatMessage) {
        var placeholder = message
        placeholder.seq = Int64.max
        let bytes = placeholder.encodedDatagram()
        let marker = Self.marker
        let digits = marker.count - String(Int64.max).utf8.count
        var start = 0
        while start + marker.count <= bytes.count, !bytes[start..<(start + marker.count)].elementsEqual(marker) { start += 1 }
        precondition(start + marker.count <= bytes.count, "an encoded room event always has its seq")
        beforeSeq = Array(bytes[..<(start + digits)])
        afterSeq = Array(bytes[(start + marker.count)...])
    }

    /// The whole encoding with `seq` (what the log makes of it).
    func joined(seq: Int64) -> [UInt8] {
        beforeSeq + Array(String(seq).utf8) + afterSeq
    }
}

extension SharedRoomEvent {
    /// The event for a member's chat stream: the stored bytes and LF, with `"replay":true` for a
    /// re-send from history (PROTOCOL.md section 3), as ``StoredEvent/message(replay:)`` marks it.
    func line(replay: Bool) -> SharedPayload {
        var bytes = payload
        if replay, bytes.last == UInt8(ascii: "}") {
            bytes.removeLast()
            bytes += Array(#","replay":true}"#.utf8)
        }
        bytes.append(UInt8(ascii: "\n"))
        return SharedPayload(bytes: bytes, type: MessageType(rawValue: kind.rawValue))
    }
}
