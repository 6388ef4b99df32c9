/// The values of the `type` field defined by protocol version 1.
///
/// `ChatMessage.type` stays a `String` so that a message of a type this build does not
/// know still decodes; the server answers those with `unknown-type`.
public enum MessageType: String, Sendable, CaseIterable {
    // Client to server, chat stream (some are also server to client).
    case join
    case msg
    case dm
    case nick
    case part
    case history

    // Server to client, chat stream.
    case welcome
    case ack
    case joined
    case left
    case historyEnd = "history-end"
    case error

    // Presence stream and datagrams.
    case roster
    case status
    case typing
    case presence
}
