/// The values of the `type` field defined by protocol version 1, the accounts, moderation and
/// files of version 1.1 (sections 7 to 9) and the always-on additions of version 1.2 (13 to 17).
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
    /// Leaving with a quit message (issue 24): the server closes the connection, and the `left`
    /// events say `quit: MESSAGE`.
    case quit

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

    // Version 1.1, accounts (section 7): client requests on the chat stream, and the server's
    // `account` answer.
    case register
    case login
    case password
    case certificate
    case account

    // Version 1.1, moderation (section 8). `topic`, `op`, `deop`, `mode` and `invite` are both the
    // request and the room event (or notice) that answers it; `kicked`, `banned` and `unbanned`
    // answer `kick`, `ban` and `unban`; `rooms` and `whois` are answered in kind.
    case claim
    case topic
    case kick
    case kicked
    case ban
    case banned
    case unban
    case unbanned
    case op
    case deop
    case mode
    case invite
    case rooms
    case whois

    // Version 1.1, files (section 9): the first line of a file stream (`upload`, `download`), and
    // `file`, the room event or private notice announcing a stored file, also the first line of
    // a download's answer.
    case upload
    case download
    case file

    // Version 1.2, always on (sections 13-17), all on the chat stream. `read` goes both ways (a
    // device moves the account's marker; the others are told); `edit`, `redact`, `react` and
    // `unreact` are both the request and the room or conversation event; `search` is answered
    // by `found`; `away` is the auto-reply to a `dm` sent to an away user.
    case read
    case edit
    case redact
    case react
    case unreact
    case search
    case found
    case away
}
