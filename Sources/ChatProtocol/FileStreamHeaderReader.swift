/// The first line of a file stream (PROTOCOL.md section 9): one JSON object and an LF, then, on
/// an upload, the file's raw bytes. The header ends at the first LF (a JSON text holds none
/// outside whitespace, and encoders write none); what follows it is body.
///
/// The limits of section 4 apply: a header of more than ``ChatLimits/maxStreamMessageBytes``
/// bytes with its LF, or one that is not UTF-8, is a framing violation (PROTOCOL_ERROR). At
/// most that many bytes are ever held.
public struct FileStreamHeaderReader: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// No LF yet: feed more.
        case needsMore
        /// The header: a message, or what was wrong with it (anything but exactly one JSON
        /// object is `bad-json`). The body starts at `bodyStart` of the bytes just fed.
        case header(ChatStreamEvent, bodyStart: Int)
    }

    private var held: [UInt8] = []
    private var done = false

    public init() {}

    /// Feeds the next bytes of the stream; `fin` says they are its last.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, fin: Bool) -> Outcome {
        guard !done else { return .header(.malformed(.badJSON, id: nil), bodyStart: 0) }
        let lineFeed = bytes.firstIndex(of: ASCII.lineFeed)
        let taken = lineFeed ?? bytes.count
        guard held.count + taken < ChatLimits.maxStreamMessageBytes else {
            done = true
            held = []
            return .header(.fatal(.tooLarge), bodyStart: bytes.count)
        }
        held.append(contentsOf: bytes[..<taken])
        guard lineFeed != nil || fin else { return .needsMore }
        done = true
        let event = Self.decode(held)
        held = []
        return .header(event, bodyStart: lineFeed.map { $0 + 1 } ?? bytes.count)
    }

    public mutating func feed(_ bytes: [UInt8], fin: Bool) -> Outcome {
        bytes.withUnsafeBytes { feed($0, fin: fin) }
    }

    /// The header line's one message, through the stream decoder so that its rules are those
    /// of the chat stream's.
    private static func decode(_ line: [UInt8]) -> ChatStreamEvent {
        var decoder = ChatStreamDecoder()
        var events = decoder.feed(line)
        events += decoder.finish()
        if let fatal = events.first(where: { if case .fatal = $0 { return true } else { return false } }) { return fatal }
        guard events.count == 1, let only = events.first else { return .malformed(.badJSON, id: nil) }
        return only
    }
}
