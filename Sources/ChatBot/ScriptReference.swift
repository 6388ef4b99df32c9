import ChatProtocol

/// A version 1.2 command that names a message of the bot's current room (PROTOCOL.md section
/// 15): `edit`, `redact`, `react`, `unreact`, `reply` and `read` (README, "Bot scripts").
struct ScriptReference: Equatable, Sendable {
    enum Verb: String, Sendable, CaseIterable {
        case edit, redact, react, unreact, reply, read
    }

    /// Which message: a script cannot know seqs before it runs, so it names them by what the bot saw.
    enum Target: Equatable, Sendable {
        /// The newest `msg` or `file` the bot has seen in the room, its own acknowledged ones included.
        case last
        /// The bot's own newest acknowledged `msg` in the room.
        case mine
        /// That seq.
        case seq(Int64)
    }

    var verb: Verb
    var target: Target
    /// The new text (`edit`), the reason (`redact`), the reaction (`react`, `unreact`), the reply (`reply`).
    var text = ""

    /// Whether the server acknowledges it (the bot waits for that before it quits): all but `read`,
    /// which has no answer (section 17).
    var isAcknowledged: Bool { verb != .read }

    /// The request for the message `seq` of `room`.
    func message(room: String, seq: Int64, id: String) -> ChatMessage {
        switch verb {
        case .reply: ChatMessage(type: MessageType.msg.rawValue, text: text, room: room, id: id, ref: seq)
        case .read: ChatMessage(type: MessageType.read.rawValue, room: room, read: seq)
        case .edit, .redact, .react, .unreact: ChatMessage(type: verb.rawValue, text: text, room: room, id: id, ref: seq)
        }
    }
}
