/// Properties every decoded message and every decode error must have, whichever path produced them.

/// A decoded message survives encoding: as a datagram and as a stream line it decodes to the same
/// message, and re-encoding that gives the same bytes (the encoder is canonical).
func checkRoundTrip(_ message: ChatMessage) {
    let datagram = message.encodedDatagram()
    let line = message.encodedLine()
    require(line == datagram + [ASCII.lineFeed], "a line is the datagram and one LF")
    require(!datagram.contains(ASCII.lineFeed), "the encoder escapes every LF inside strings")

    let again: ChatMessage
    do {
        again = try ChatMessage.decode(datagram)
    } catch {
        fatalError("property violated: an encoded message does not decode: \(error)")
    }
    require(again == message, "decode(encode(m)) == m")
    require(again.encodedDatagram() == datagram, "encode(decode(encode(m))) has the same bytes")

    // A decoded message can grow when re-encoded (`text` and `sender` are always written), so the
    // stream limit here is the line's own size, not the protocol's.
    var decoder = ChatStreamDecoder(maxMessageBytes: max(ChatLimits.maxStreamMessageBytes, line.count))
    let events = decoder.feed(line) + decoder.finish()
    require(events == [.message(message)], "an encoded line is one message on a stream")
}

/// A decode error names a field the protocol knows and carries an `id` only when the JSON was valid.
func checkDecodeError(_ error: ChatDecodeError, id: String?) {
    switch error {
    case .badJSON:
        require(id == nil, "no id is read from a document that is not JSON")
    case .badField(let name):
        require(ChatField.allCases.contains { $0.name == name }, "bad-field names a known field, not \(name)")
        require(name != "id" || id == nil, "a bad id is not echoed")
    }
}

/// Byte-exact equality: `ChatMessage`'s `==` compares strings by canonical equivalence, so
/// "é" and "e\u{301}" would be equal; a decoder must give back exactly the bytes it was sent.
func exactlyEqual(_ left: [ChatStreamEvent], _ right: [ChatStreamEvent]) -> Bool {
    guard left == right else { return false }
    return zip(left, right).allSatisfy { pair in
        if case .message(let leftMessage) = pair.0, case .message(let rightMessage) = pair.1 {
            return leftMessage.encodedDatagram() == rightMessage.encodedDatagram()
        }
        return true
    }
}
