/// Splits the bytes of a QUIC stream into messages (PROTOCOL.md section 3) and decodes them.
///
/// Accepts objects followed by LF, objects back to back without LF, any JSON whitespace
/// between objects, and messages split across feeds at any byte. An object ends where its
/// brace depth returns to zero, counting only braces outside strings.
///
/// Per-message problems (``ChatStreamEvent/malformed(_:id:)``) leave the stream usable:
/// - a complete object that is not a valid message;
/// - a garbage line, i.e. bytes between objects that are neither whitespace nor `{`:
///   reported once, and decoding resumes after the next LF;
/// - a raw LF inside a string, which valid JSON never contains: reported as `bad-json`
///   and decoding resumes after that LF, so an unterminated string cannot swallow the
///   following messages.
///
/// Framing violations (``ChatStreamEvent/fatal(_:)``) end decoding for good:
/// - an object, or a garbage line, longer than `maxMessageBytes - 1` bytes before its LF;
/// - invalid UTF-8 anywhere on the stream.
///
/// At most `maxMessageBytes - 1` bytes of an unfinished object are ever held, and the
/// scanning state survives between feeds, so any chunking costs O(n) in total.
public struct ChatStreamDecoder: Sendable {
    private enum Phase: Sendable {
        case betweenMessages
        case insideObject
        case skippingGarbage
        case failed
    }

    /// The largest message, LF included (``ChatLimits/maxStreamMessageBytes`` by default).
    public let maxMessageBytes: Int
    /// The longest object or garbage line, the LF not included.
    private var maxFrameBytes: Int { maxMessageBytes - 1 }
    /// Buffer capacity worth keeping between messages; a rare large message should not
    /// pin 64 KiB to every connection that once sent one.
    private static let retainedBufferCapacity = 4_096

    private var phase = Phase.betweenMessages
    private var utf8 = UTF8Validator()
    /// The bytes of an object that began in an earlier feed. Objects that start and end
    /// within one feed are decoded straight from the caller's buffer and never copied.
    private var partialObject: [UInt8] = []
    /// Bytes of the current object or garbage line seen so far.
    private var frameLength = 0
    private var braceDepth = 0
    private var isInsideString = false
    private var isAfterBackslash = false

    public init(maxMessageBytes: Int = ChatLimits.maxStreamMessageBytes) {
        precondition(maxMessageBytes >= 2, "a message needs at least `{}` or an LF")
        self.maxMessageBytes = maxMessageBytes
    }

    /// True after a fatal error: nothing more will be produced.
    public var hasFailed: Bool { phase == .failed }

    /// How many bytes of an unfinished object are held; never more than `maxMessageBytes - 1`.
    public var bufferedByteCount: Int { partialObject.count }

    /// Feeds the next bytes of the stream and returns what they completed.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [ChatStreamEvent] {
        var events: [ChatStreamEvent] = []
        let wasContiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            feed(UnsafeRawBufferPointer(buffer)) { events.append($0) }
        }
        if wasContiguous == nil {
            Array(bytes).withUnsafeBytes { buffer in feed(buffer) { events.append($0) } }
        }
        return events
    }

    /// Feeds the next bytes of the stream and hands each completed result to `onEvent`,
    /// in stream order, without collecting them in an array.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ onEvent: (ChatStreamEvent) -> Void) {
        var index = 0
        while index < bytes.count {
            switch phase {
            case .betweenMessages:
                index = skipToNextObject(in: bytes, from: index, onEvent)
            case .insideObject:
                index = scanObject(in: bytes, from: index, onEvent)
            case .skippingGarbage:
                index = skipGarbage(in: bytes, from: index, onEvent)
            case .failed:
                return
            }
        }
    }

    /// Ends the stream (its FIN arrived): an unfinished object is reported as `bad-json`.
    /// The decoder is then ready for a new stream.
    public mutating func finish() -> [ChatStreamEvent] {
        defer { self = ChatStreamDecoder(maxMessageBytes: maxMessageBytes) }
        return phase == .insideObject ? [.malformed(.badJSON, id: nil)] : []
    }

    // MARK: Scanning, one loop per phase; each returns the index where it stopped:
    // the end of the buffer, or where the phase changed.

    private mutating func skipToNextObject(
        in bytes: UnsafeRawBufferPointer, from start: Int, _ onEvent: (ChatStreamEvent) -> Void
    ) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.openBrace {
                beginObject()
                return index
            }
            if !ASCII.isWhitespace(byte) {
                // Reported at once, so the reply does not wait for the line's LF; the garbage
                // loop then checks the line's length and UTF-8 starting with this byte.
                onEvent(.malformed(.badJSON, id: nil))
                phase = .skippingGarbage
                frameLength = 0
                return index
            }
            index += 1
        }
        return index
    }

    private mutating func skipGarbage(
        in bytes: UnsafeRawBufferPointer, from start: Int, _ onEvent: (ChatStreamEvent) -> Void
    ) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard utf8.consume(byte) else { return fail(.invalidUTF8, onEvent) }
            if byte == ASCII.lineFeed {
                phase = .betweenMessages
                return index
            }
            frameLength += 1
            if frameLength > maxFrameBytes { return fail(.tooLarge, onEvent) }
        }
        return index
    }

    /// `start` is either the object's `{` or the first byte after the previous feed.
    private mutating func scanObject(
        in bytes: UnsafeRawBufferPointer, from start: Int, _ onEvent: (ChatStreamEvent) -> Void
    ) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            frameLength += 1
            if frameLength > maxFrameBytes { return fail(.tooLarge, onEvent) }
            if byte >= 0x80 || !utf8.isAtCharacterBoundary {
                guard utf8.consume(byte) else { return fail(.invalidUTF8, onEvent) }
            }
            if isInsideString {
                if isAfterBackslash {
                    isAfterBackslash = false
                } else if byte == ASCII.backslash {
                    isAfterBackslash = true
                } else if byte == ASCII.quote {
                    isInsideString = false
                } else if byte == ASCII.lineFeed {
                    discardPartialObject()
                    phase = .betweenMessages
                    onEvent(.malformed(.badJSON, id: nil))
                    return index
                }
            } else if byte == ASCII.quote {
                isInsideString = true
            } else if byte == ASCII.openBrace {
                braceDepth += 1
            } else if byte == ASCII.closeBrace {
                braceDepth -= 1
                if braceDepth == 0 {
                    completeObject(ending: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), onEvent)
                    return index
                }
            }
        }
        partialObject.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<bytes.count]))
        return index
    }

    private mutating func beginObject() {
        phase = .insideObject
        frameLength = 0
        braceDepth = 0
        isInsideString = false
        isAfterBackslash = false
    }

    /// Decodes the finished object: `tail` alone, or appended to what earlier feeds left.
    private mutating func completeObject(ending tail: UnsafeRawBufferPointer, _ onEvent: (ChatStreamEvent) -> Void) {
        phase = .betweenMessages
        if partialObject.isEmpty {
            onEvent(Self.event(decoding: tail))
        } else {
            partialObject.append(contentsOf: tail)
            onEvent(partialObject.withUnsafeBytes { Self.event(decoding: $0) })
            discardPartialObject()
        }
    }

    private mutating func discardPartialObject() {
        partialObject.removeAll(keepingCapacity: partialObject.capacity <= Self.retainedBufferCapacity)
    }

    private static func event(decoding frame: UnsafeRawBufferPointer) -> ChatStreamEvent {
        var id: String?
        do {
            return .message(try ChatMessage.decode(frame, idOnFailure: &id))
        } catch {
            return .malformed(error, id: id)
        }
    }

    /// Reports a fatal error, releases the buffer and returns an index that ends every loop.
    private mutating func fail(_ error: ChatFramingError, _ onEvent: (ChatStreamEvent) -> Void) -> Int {
        phase = .failed
        partialObject = []
        onEvent(.fatal(error))
        return Int.max
    }
}
