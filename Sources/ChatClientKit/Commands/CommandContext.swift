import ChatProtocol

/// What a client mode offers the command table (``ClientCommands``): line mode and the
/// full-screen UI each conform once, and every `/command` is carried out by the table's handler
/// through these few operations, so a command behaves the same in both modes.
public protocol CommandContext: AnyObject {
    /// The room a command acts on: the room shown (line mode: the current room); nil while a
    /// private conversation is shown.
    var commandRoom: String? { get }
    /// The other side of the private conversation shown, if one is.
    var conversationNick: String? { get }
    /// What the session knows of a room (members, operators, topic, modes).
    func roomInfo(_ room: String) -> RoomMembers.Info
    /// A line of information for the person (an answer, a note).
    func note(_ text: String)
    /// Something went wrong with what the person typed; nothing was sent.
    func complain(_ text: String)
    /// Queues a request for the server; says so when it waits for the connection (`what` is the
    /// command as the person would recognise it).
    func request(_ message: ChatMessage, doing what: String)
    /// A message (or an action) to the room or conversation shown.
    func say(_ text: String, action: Bool)
    /// A message to a room joined, whichever is shown (`/msg #room TEXT`).
    func say(_ text: String, inRoom room: String)
    /// A private message to `nick`, from a command (`/msg`, `/query NICK TEXT`).
    func sendPrivate(_ text: String, to nick: String)
    func join(_ room: String)
    func part(_ room: String)
    /// `/away [REASON]`, `/back` (nil).
    func setAway(_ reason: String?)
    /// Who is in the room commands act on.
    func who()
    /// Older events of the room commands act on.
    func history(_ count: Int?)
    /// `/register`, `/login NICK`, `/password`: the password is asked for, never typed on the line.
    func askForSecret(_ purpose: SecretPurpose)
    /// Whether `path` names a regular file (a `/send` path typed with spaces).
    func isFile(_ path: String) -> Bool
    func send(_ path: String, to nick: String?)
    func get(_ number: Int, into folder: String?)
    func cancel(_ number: Int)
    /// `/quit [MESSAGE]`: the rooms are told MESSAGE (`left` `quit: MESSAGE`) when there is one.
    func quit(_ message: String?)
    /// `/ignore NICK` (nil: list them), `/unignore NICK`.
    func ignore(_ nick: String?)
    func unignore(_ nick: String)
    /// `/filter on|off` (nil: say whether it is on): the smart filter of joins and parts.
    func smartFilter(_ on: Bool?)
    /// Every line with `word`, in a view (line mode: printed again).
    func lastlog(_ word: String)
    /// The web addresses of the buffer shown, in a view (line mode: printed again).
    func urls()
    /// `/transfers`: those running and those that ended (``TransferHistory``).
    func transfers()
    /// `/edit`, `/redact`, `/react`, `/unreact`, `/reply` about a message of the buffer shown
    /// (``MessageReferences`` has the rules).
    func change(_ request: MessageRequest)
    /// `/search WORDS` on a server that searches (version 1.2): true when done (sent, or refused
    /// with a note); false when the server does not search.
    func searchServer(_ words: String) -> Bool
}

/// The commands only a screen can carry out (buffers, scrollback); line mode does not conform.
public protocol ScreenCommandContext: CommandContext {
    func query(_ nick: String, text: String?)
    /// Closes the conversation shown, or leaves the room shown.
    func close()
    func clear()
    func search(_ term: String?)
    /// `/buffer N`, `/buffer NAME`, `/buffer` (a list).
    func buffer(_ target: String?)
    /// `/nicklist`: hides or shows the member list.
    func toggleMemberList()
    /// `/numbers`: shows or hides each message's number.
    func toggleMessageNumbers()
    /// The keys, for `/help` (one line each).
    var keyHelp: [String] { get }
}

/// Why a password is asked for.
public enum SecretPurpose: Equatable, Sendable {
    case register
    case login(String)
    case changePassword

    /// The question, before the password is typed.
    public func prompt(nick: String) -> String {
        switch self {
        case .register: "password for the account \(nick)"
        case .login(let name): "password of \(name)"
        case .changePassword: "new password"
        }
    }

    /// The request the password goes in.
    public func request(password: String) -> (message: ChatMessage, doing: String) {
        switch self {
        case .register: (.register(password: password), "/register")
        case .login(let name): (.login(account: name, password: password), "/login \(name)")
        case .changePassword: (.changePassword(password), "/password")
        }
    }
}

/// A command that cannot be carried out as typed.
public enum CommandError: Error, Equatable, Sendable {
    /// The arguments do not fit: the command's usage is shown.
    case usage
    /// Said as it is.
    case message(String)
}
