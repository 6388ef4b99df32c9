/// Writes one JSON object, member by member, into a ``JSONByteSink``.
///
/// Strings are escaped minimally: `"`, `\` and the control characters below U+0020, the
/// only ones RFC 8259 requires. Everything else, non-ASCII UTF-8 included, is copied as it
/// is, which is both fastest and what every JSON parser accepts.
struct JSONWriter<Sink: JSONByteSink> {
    var sink: Sink
    private var hasMembers = false

    /// Starts an object.
    init(_ sink: Sink) {
        self.sink = sink
        self.sink.append(ASCII.openBrace)
    }

    mutating func endObject() {
        sink.append(ASCII.closeBrace)
    }

    mutating func write(_ key: StaticString, _ value: String) {
        writeKey(key)
        appendString(value)
    }

    mutating func write(_ key: StaticString, _ value: Int64) {
        writeKey(key)
        appendInteger(value)
    }

    mutating func write(_ key: StaticString, _ value: Bool) {
        writeKey(key)
        appendLiteral(value ? "true" : "false")
    }

    mutating func write(_ key: StaticString, _ values: [String]) {
        writeKey(key)
        sink.append(ASCII.openBracket)
        for (index, value) in values.enumerated() {
            if index > 0 { sink.append(ASCII.comma) }
            appendString(value)
        }
        sink.append(ASCII.closeBracket)
    }

    /// An array of `{"room","members","topic"}` objects (`rooms`, `whois`), or of
    /// `{"room","seq","read","unread","mentions"}` (`welcome`'s kept rooms).
    mutating func write(_ key: StaticString, _ listings: [RoomListing]) {
        writeArray(key, listings) { object, listing in
            object.write("room", listing.room)
            if let position = listing.position {
                object.write(position)
            } else {
                object.write("members", Int64(listing.members))
                object.write("topic", listing.topic)
            }
        }
    }

    /// `welcome`'s `conversations`: `{"with","seq","read","unread","mentions"}` objects.
    mutating func write(_ key: StaticString, _ conversations: [ConversationListing]) {
        writeArray(key, conversations) { object, conversation in
            object.write("with", conversation.with)
            object.write(conversation.position)
        }
    }

    /// `found`'s `events`: whole messages, each an object as it would be sent alone.
    mutating func write(_ key: StaticString, _ messages: [ChatMessage]) {
        writeArray(key, messages) { object, message in message.writeMembers(to: &object) }
    }

    private mutating func write(_ position: ReadPosition) {
        write("seq", position.seq)
        write("read", position.read)
        write("unread", Int64(position.unread))
        write("mentions", Int64(position.mentions))
    }

    /// An array of objects, each written by `members` into a writer of its own.
    private mutating func writeArray<Element>(
        _ key: StaticString, _ elements: [Element], members: (inout JSONWriter, Element) -> Void
    ) {
        writeKey(key)
        sink.append(ASCII.openBracket)
        for (index, element) in elements.enumerated() {
            if index > 0 { sink.append(ASCII.comma) }
            var object = JSONWriter(sink)
            members(&object, element)
            object.endObject()
            sink = object.sink
        }
        sink.append(ASCII.closeBracket)
    }

    private mutating func writeKey(_ key: StaticString) {
        if hasMembers { sink.append(ASCII.comma) }
        hasMembers = true
        sink.append(ASCII.quote)
        // Keys are our own ASCII literals and never need escaping.
        appendLiteral(key)
        sink.append(ASCII.quote)
        sink.append(ASCII.colon)
    }

    @inline(__always)
    private mutating func appendLiteral(_ literal: StaticString) {
        sink.append(UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func appendString(_ string: String) {
        var string = string
        // Native Swift strings are contiguous UTF-8 already; this only copies bridged ones.
        string.withUTF8 { appendString(utf8: UnsafeRawBufferPointer($0)) }
    }

    private mutating func appendString(utf8: UnsafeRawBufferPointer) {
        sink.append(ASCII.quote)
        // Copy runs of bytes that need no escaping in one go; escapes are rare in chat text.
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < ASCII.space || byte == ASCII.quote || byte == ASCII.backslash else { continue }
            sink.append(UnsafeRawBufferPointer(rebasing: utf8[runStart..<index]))
            appendEscape(for: byte)
            runStart = index + 1
        }
        sink.append(UnsafeRawBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        sink.append(ASCII.quote)
    }

    private mutating func appendEscape(for byte: UInt8) {
        sink.append(ASCII.backslash)
        switch byte {
        case ASCII.quote, ASCII.backslash: sink.append(byte)
        case 0x08: sink.append(ASCII.lowerB)
        case 0x0C: sink.append(ASCII.lowerF)
        case ASCII.lineFeed: sink.append(ASCII.lowerN)
        case ASCII.carriageReturn: sink.append(ASCII.lowerR)
        case ASCII.tab: sink.append(ASCII.lowerT)
        default:
            // Only 0x00...0x1F get here, so the first two hex digits are 0 and the third is 0 or 1.
            let low = byte & 0xF
            sink.append(ASCII.lowerU)
            sink.append(ASCII.zero)
            sink.append(ASCII.zero)
            sink.append(ASCII.zero + (byte >> 4))
            sink.append(low < 10 ? ASCII.zero + low : ASCII.lowerA + low - 10)
        }
    }

    private mutating func appendInteger(_ value: Int64) {
        if value < 0 { sink.append(ASCII.minus) }
        // The magnitude, unlike the value, also exists for Int64.min.
        var magnitude = value.magnitude
        // Digits come out least significant first, so fill a small stack buffer from its end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = ASCII.zero + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            sink.append(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: digits[first...])))
        }
    }
}
