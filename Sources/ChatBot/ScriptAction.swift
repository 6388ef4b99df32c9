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
    /// The body `times` times, or forever when nil.
    case repeatBlock(times: Int?, body: [ScriptCommand])
    /// Closes the connection once every message sent has been acknowledged.
    case quit

    /// True when running this can make the bot wait (so a `repeat forever` around it cannot spin).
    var canWait: Bool {
        switch self {
        case .join, .part, .wait, .expect, .quit: true
        case .repeatBlock(_, let body): body.contains { $0.action.canWait }
        case .say, .sendRaw, .directMessage, .typing, .request: false
        }
    }
}
