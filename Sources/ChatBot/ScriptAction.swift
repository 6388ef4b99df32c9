/// What a script command does (README, "Bot scripts").
indirect enum ScriptAction: Equatable, Sendable {
    /// Joins a room and waits for the own `joined`; the room becomes the current one.
    case join(room: String)
    /// Leaves a room (the current one when nil) and waits for the own `left`.
    case part(room: String?)
    /// A `msg` to the current room.
    case say(String)
    /// Bytes written as they are on the chat stream, then a line feed: malformed input on purpose.
    case sendRaw([UInt8])
    /// A private message; `to` may name another bot of the script.
    case directMessage(to: String, text: String)
    /// A typing datagram, `start` (true) or `stop`, for the current room.
    case typing(Bool)
    /// An account or moderation request (`register`, `login`, `topic`, `kick`, `ban`, `mode`, ...).
    case request(ScriptRequest)
    case wait(DurationRange)
    case expect(ScriptExpectation)
    /// Shares a file (a path, or `size` random bytes) in the current room or with `to`, and waits
    /// until the server acknowledged it (PROTOCOL.md section 9).
    case upload(path: String?, randomBytes: Int64?, to: String?)
    /// Downloads the newest file shared with the bot into `folder` (a temporary one when nil) and
    /// waits until it is saved with its SHA-256 checked.
    case download(folder: String?)
    /// A version 1.2 request about a message of the current room (`edit`, `redact`, `react`,
    /// `unreact`, `reply`, `read`).
    case refer(ScriptReference)
    /// A `search` of the current room; `expect found` looks at the answer.
    case search(String)
    /// The body `times` times, or forever when nil.
    case repeatBlock(times: Int?, body: [ScriptCommand])
    /// Closes the connection once every message sent has been acknowledged.
    case quit

    /// True when running this can make the bot wait (so a `repeat forever` around it cannot spin).
    var canWait: Bool {
        switch self {
        case .join, .part, .wait, .expect, .quit, .upload, .download: true
        case .repeatBlock(_, let body): body.contains { $0.action.canWait }
        case .say, .sendRaw, .directMessage, .typing, .request, .refer, .search: false
        }
    }
}
