/// One result of ``ChatStreamDecoder``.
public enum ChatStreamEvent: Sendable, Equatable {
    /// A complete, well-formed message.
    case message(ChatMessage)
    /// A complete frame that is not a valid message, or a garbage line. The stream goes on.
    /// `id` is the message's `id` when the JSON was valid and its `id` a string, so that the
    /// `error` reply can echo it as section 3 asks.
    case malformed(ChatDecodeError, id: String?)
    /// A framing violation; the decoder produces nothing after it.
    case fatal(ChatFramingError)
}
