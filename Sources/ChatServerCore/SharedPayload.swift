import ChatProtocol

/// Bytes encoded once and handed to many recipients: a broadcast to a room of a thousand
/// members is one encode and one allocation, and every `.send` action shares this object.
public final class SharedPayload: Sendable {
    /// What goes on the wire: a JSON object, plus LF when it is for a stream.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A message framed for a stream (JSON object and LF).
    public convenience init(line message: ChatMessage) {
        self.init(bytes: message.encodedLine())
    }

    /// A message framed for a DATAGRAM frame (JSON object, no LF).
    public convenience init(datagram message: ChatMessage) {
        self.init(bytes: message.encodedDatagram())
    }
}
