/// The fast decoder: one JSON object (RFC 8259) in, one ``ChatMessage`` out.
///
/// Rules beyond plain JSON, all part of the wire contract:
/// - whitespace around the object is allowed; anything else after it is `bad-json`;
/// - unknown keys are ignored, whatever their value, but their syntax is still checked;
/// - a duplicate key: the last one wins, also for deciding whether the field is bad;
/// - `null` in a known field means the field is absent (`text` and `sender` become "");
/// - a bad JSON document is always `bad-json`, even if it also has a bad field.
extension ChatMessage {
    /// Decodes one message, e.g. a datagram or a frame from ``ChatStreamDecoder``.
    public static func decode(_ buffer: UnsafeRawBufferPointer) throws(ChatDecodeError) -> ChatMessage {
        var ignoredID: String?
        return try decode(buffer, idOnFailure: &ignoredID)
    }

    /// Decodes one message from any byte collection (an `Array`, a `Data`, a `String.UTF8View`...).
    public static func decode(_ bytes: some Collection<UInt8>) throws(ChatDecodeError) -> ChatMessage {
        // `withUnsafeBytes` and friends only rethrow untyped errors, hence the detour through Result.
        let contiguousResult = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(ChatDecodeError) in try decode(UnsafeRawBufferPointer(buffer)) }
        }
        if let contiguousResult { return try contiguousResult.get() }
        return try Array(bytes).withUnsafeBytes { buffer in
            Result { () throws(ChatDecodeError) in try decode(buffer) }
        }.get()
    }

    /// Decodes one message; when that fails with `bad-field` but the message's `id` was a
    /// string, `idOnFailure` receives it so that the `error` reply can carry it.
    public static func decode(
        _ buffer: UnsafeRawBufferPointer,
        idOnFailure: inout String?
    ) throws(ChatDecodeError) -> ChatMessage {
        var parser = JSONParser(buffer)
        parser.skipWhitespace()
        guard parser.current == ASCII.openBrace else { throw .badJSON }
        var badField: ChatField?
        let message = try parser.readMessage(depth: 1, badField: &badField)
        parser.skipWhitespace()
        guard parser.isAtEnd else { throw .badJSON }
        if let badField {
            idOnFailure = message.id
            throw .badField(badField.name)
        }
        return message
    }
}

extension JSONParser {
    /// One message object that opens at `depth` (1 at the top, deeper inside `found`'s `events`);
    /// `badField` is the first field in ``ChatField`` order whose last occurrence had the wrong
    /// type, or `type` when there is no string `type`.
    mutating func readMessage(depth: Int, badField: inout ChatField?) throws(ChatDecodeError) -> ChatMessage {
        // Filled in place and returned as is: building it from collected optionals at the
        // end would cost a retain and a release per field, a visible share of the decode.
        var message = ChatMessage(type: "")
        var progress = DecodeProgress()
        try forEachMember(depth: depth) { (parser, key) throws(ChatDecodeError) in
            try message.readMember(key: key, from: &parser, valueDepth: depth + 1, progress: &progress)
        }
        if progress.badFields != 0 {
            badField = ChatField.allCases.first(where: { progress.badFields & $0.bit != 0 })
        } else if !progress.hasType {
            badField = .type
        } else {
            badField = nil
        }
        return message
    }

    /// `found`'s `events`: an array of message objects, each of which must decode without a bad
    /// field (one that does not makes the whole field the wrong type).
    mutating func readMessages(depth: Int) throws(ChatDecodeError) -> JSONFieldValue<[ChatMessage]> {
        try readArray(depth: depth) { (parser) throws(ChatDecodeError) in
            guard parser.current == ASCII.openBrace else { return nil }
            var badField: ChatField?
            let message = try parser.readMessage(depth: depth + 1, badField: &badField)
            return badField == nil ? message : nil
        }
    }
}

/// What decoding has learnt beyond the field values themselves.
fileprivate struct DecodeProgress {
    /// Whether the last `type` member was a string.
    var hasType = false
    /// Fields whose last occurrence had the wrong type.
    var badFields: UInt64 = 0
}

extension ChatMessage {
    /// Reads the value of one member, which lies at nesting depth 2, into its field.
    fileprivate mutating func readMember(
        key: JSONStringToken, from parser: inout JSONParser, valueDepth: Int, progress: inout DecodeProgress
    ) throws(ChatDecodeError) {
        guard let field = Self.field(for: key, in: parser) else {
            try parser.skipValue(depth: valueDepth)
            return
        }
        let isBad: Bool
        switch field {
        case .type:
            let type: String?
            (type, isBad) = try parser.readString(depth: valueDepth).resolved
            progress.hasType = type != nil
            self.type = type ?? ""
        case .text:
            let text: String?
            (text, isBad) = try parser.readString(depth: valueDepth).resolved
            self.text = text ?? ""
        case .sender:
            let sender: String?
            (sender, isBad) = try parser.readString(depth: valueDepth).resolved
            self.sender = sender ?? ""
        case .room: (room, isBad) = try parser.readString(depth: valueDepth).resolved
        case .id: (id, isBad) = try parser.readString(depth: valueDepth).resolved
        case .peer: (peer, isBad) = try parser.readString(depth: valueDepth).resolved
        case .to: (to, isBad) = try parser.readString(depth: valueDepth).resolved
        case .code: (code, isBad) = try parser.readString(depth: valueDepth).resolved
        case .seq: (seq, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .ts: (ts, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .since: (since, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .before: (before, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .limit:
            let (wide, isWrongType) = try parser.readInteger(depth: valueDepth).resolved
            limit = wide.flatMap { Int(exactly: $0) }
            // Only on a 32-bit platform can an Int64 not fit; then it is out of range like any other.
            isBad = isWrongType || (wide != nil && limit == nil)
        case .members: (members, isBad) = try parser.readStringArray(depth: valueDepth).resolved
        case .replay: (replay, isBad) = try parser.readBool(depth: valueDepth).resolved
        case .account: (account, isBad) = try parser.readString(depth: valueDepth).resolved
        case .password: (password, isBad) = try parser.readString(depth: valueDepth).resolved
        case .old: (old, isBad) = try parser.readString(depth: valueDepth).resolved
        case .mode: (mode, isBad) = try parser.readString(depth: valueDepth).resolved
        case .topic: (topic, isBad) = try parser.readString(depth: valueDepth).resolved
        case .features: (features, isBad) = try parser.readStringArray(depth: valueDepth).resolved
        case .modes: (modes, isBad) = try parser.readStringArray(depth: valueDepth).resolved
        case .ops: (ops, isBad) = try parser.readStringArray(depth: valueDepth).resolved
        case .identified: (identified, isBad) = try parser.readStringArray(depth: valueDepth).resolved
        case .rooms: (rooms, isBad) = try parser.readRoomListings(depth: valueDepth).resolved
        case .file: (file, isBad) = try parser.readString(depth: valueDepth).resolved
        case .size: (size, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .sha256: (sha256, isBad) = try parser.readString(depth: valueDepth).resolved
        case .offset: (offset, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .stored: (stored, isBad) = try parser.readBool(depth: valueDepth).resolved
        case .with: (with, isBad) = try parser.readString(depth: valueDepth).resolved
        case .ref: (ref, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .read: (read, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .conversations: (conversations, isBad) = try parser.readConversationListings(depth: valueDepth).resolved
        case .edited: (edited, isBad) = try parser.readInteger(depth: valueDepth).resolved
        case .redacted: (redacted, isBad) = try parser.readBool(depth: valueDepth).resolved
        case .events: (events, isBad) = try parser.readMessages(depth: valueDepth).resolved
        case .away: (away, isBad) = try parser.readString(depth: valueDepth).resolved
        }
        // The last occurrence decides, so a later good value clears an earlier bad one.
        if isBad {
            progress.badFields |= field.bit
        } else {
            progress.badFields &= ~field.bit
        }
    }

    private static func field(for key: JSONStringToken, in parser: JSONParser) -> ChatField? {
        if !key.hasEscapes {
            return ChatField(key: UnsafeRawBufferPointer(rebasing: parser.bytes[key.start..<key.end]))
        }
        // Keys are never escaped by sane encoders, but `"\u0074ype"` is still "type".
        return parser.unescapedBytes(key).withUnsafeBytes { ChatField(key: $0) }
    }
}
