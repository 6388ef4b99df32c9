import ChatProtocol

/// Bytes encoded once and handed to many recipients: a broadcast to a room of a thousand
/// members is one encode and one allocation, and every `.send` action shares this object.
public final class SharedPayload: Sendable {
    /// What goes on the wire: a JSON object, plus LF when it is for a stream.
    public let bytes: [UInt8]
    /// The message's `type`, for the glue's delivery counts (found once per payload, not per
    /// recipient); nil for bytes of no known type.
    public let type: MessageType?

    public init(bytes: [UInt8], type: MessageType? = nil) {
        self.bytes = bytes
        self.type = type
    }

    /// A message framed for a stream (JSON object and LF).
    public convenience init(line message: ChatMessage) {
        self.init(bytes: message.encodedLine(), type: message.messageType)
    }

    /// A message framed for a DATAGRAM frame (JSON object, no LF).
    public convenience init(datagram message: ChatMessage) {
        self.init(bytes: message.encodedDatagram(), type: message.messageType)
    }
}
