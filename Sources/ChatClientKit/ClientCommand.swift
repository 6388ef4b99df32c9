/// One line the person typed: a message, or a `/command` as IRC clients know them. Pure parsing;
/// the client modes carry the commands out (the full-screen UI knows all of them, line mode the
/// ones that make sense without a screen).
public enum ClientCommand: Equatable, Sendable {
    /// Text for the current room or conversation (`//text` sends `/text`).
    case say(String)
    case action(String)
    case join(String)
    case part(String?)
    case privateMessage(to: String, text: String)
    case query(String, text: String?)
    case nick(String)
    case away
    case back
    case who
    case history(Int?)
    case close
    case clear
    case search(String?)
    case buffer(Int)
    case help(String?)
    case quit
    // Accounts (PROTOCOL.md section 7): the password is asked for, never typed on the line.
    case register
    case login(String)
    case password
    case certificate(add: Bool)
    // Moderation (section 8), in the room shown; `server` for the whole server (operators).
    case claim
    /// nil shows the topic; "" clears it.
    case topic(String?)
    case kick(nick: String, reason: String, server: Bool)
    case ban(target: String, reason: String, server: Bool)
    case unban(target: String, server: Bool)
    case op(String)
    case deop(String)
    /// nil shows the modes.
    case mode(String?)
    case invite(String)
    case rooms
    case whois(String)
    // Files (section 9).
    /// A local file to the room shown or, with `to`, to one user.
    case send(to: String?, path: String)
    /// Shared file number N (as its line shows it) into PATH (a folder, or the default).
    case get(Int, path: String?)
    /// Stop transfer N.
    case cancel(Int)
    /// A known command used wrongly: show its usage.
    case usage(String)
    /// `/something` that is no command.
    case unknown(String)

    public struct Description: Sendable {
        public let name: String
        public let usage: String
        public let summary: String
    }

    /// Every command, in the order /help lists them.
    public static let descriptions: [Description] = [
        Description(name: "join", usage: "/join ROOM", summary: "join a room (#room works too) and show it; /join a room you are in shows it"),
        Description(name: "part", usage: "/part [ROOM]", summary: "leave a room, the current one by default"),
        Description(name: "msg", usage: "/msg NICK TEXT", summary: "send a private message (its conversation opens)"),
        Description(name: "query", usage: "/query NICK [TEXT]", summary: "open a private conversation with NICK"),
        Description(name: "me", usage: "/me ACTION", summary: "an action: others see '* you ACTION'"),
        Description(name: "nick", usage: "/nick NEW", summary: "change your nick"),
        Description(name: "away", usage: "/away", summary: "show yourself away"),
        Description(name: "back", usage: "/back", summary: "show yourself online again"),
        Description(name: "who", usage: "/who", summary: "list who is in the room (~ marks away)"),
        Description(name: "history", usage: "/history [N]", summary: "ask for the room's last N stored events (default 50)"),
        Description(name: "close", usage: "/close", summary: "close the private conversation shown (in a room: leave it)"),
        Description(name: "clear", usage: "/clear", summary: "clear the messages shown in this room"),
        Description(name: "search", usage: "/search WORD", summary: "show the last line containing WORD; /search again (or Ctrl-R) for older ones"),
        Description(name: "buffer", usage: "/buffer N", summary: "show room or conversation number N (Alt-1..9 for the first nine)"),
        Description(name: "register", usage: "/register", summary: "register your nick as an account (asks for a password; your identity certificate logs you in from then on)"),
        Description(name: "login", usage: "/login NICK", summary: "log in to the account NICK (asks for its password) and take its nick"),
        Description(name: "password", usage: "/password", summary: "change your account's password (asks for the new one)"),
        Description(name: "certificate", usage: "/certificate add|remove", summary: "bind this device's identity to your account, or unbind it"),
        Description(name: "claim", usage: "/claim", summary: "become the owner of the room shown, when it has none"),
        Description(name: "topic", usage: "/topic [TEXT | -clear]", summary: "show the room's topic, set it, or clear it"),
        Description(name: "kick", usage: "/kick [-server] NICK [REASON]", summary: "remove NICK from the room (-server: from the server; operators only)"),
        Description(name: "ban", usage: "/ban [-server] NICK [REASON]", summary: "ban NICK's account (a guest: its device) from the room, or the server"),
        Description(name: "unban", usage: "/unban [-server] NAME", summary: "lift a ban of the room, or of the server"),
        Description(name: "op", usage: "/op NICK", summary: "make NICK's account an operator of the room (owner only)"),
        Description(name: "deop", usage: "/deop NICK", summary: "take operator status back (owner only)"),
        Description(name: "mode", usage: "/mode [+|-invite | +|-registered]", summary: "show the room's modes, or change one (invite-only, logged-in users only)"),
        Description(name: "invite", usage: "/invite NICK", summary: "let NICK into the room when it is invite-only"),
        Description(name: "rooms", usage: "/rooms", summary: "list the rooms that are not invite-only"),
        Description(name: "whois", usage: "/whois NICK", summary: "who NICK is: account, status, rooms"),
        Description(name: "send", usage: "/send [NICK] PATH", summary: "share a file in the room shown, or with NICK only (PATH with spaces: give NICK)"),
        Description(name: "get", usage: "/get N [FOLDER]", summary: "download shared file N (its line shows [file N]) into FOLDER (default $XDG_DOWNLOAD_DIR or ~/Downloads)"),
        Description(name: "cancel", usage: "/cancel N", summary: "stop upload or download N"),
        Description(name: "help", usage: "/help [COMMAND]", summary: "list the commands, or explain one"),
        Description(name: "quit", usage: "/quit", summary: "leave (waits for messages not yet delivered; Ctrl-C twice quits at once)"),
    ]

    public static func description(of name: String) -> Description? {
        let bare = name.hasPrefix("/") ? String(name.dropFirst()) : name
        return descriptions.first { $0.name == bare.lowercased() }
    }

    /// The commands with their slash, for Tab completion.
    public static var names: [String] { descriptions.map { "/" + $0.name } }

    public init(parsing line: String) {
        guard line.hasPrefix("/") else {
            self = .say(line)
            return
        }
        if line.hasPrefix("//") {
            self = .say(String(line.dropFirst()))
            return
        }
        let nameEnd = line.firstIndex(where: { $0 == " " }) ?? line.endIndex
        let name = line[line.index(after: line.startIndex)..<nameEnd].lowercased()
        let rest = line[nameEnd...].drop { $0 == " " }
        let words = rest.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let argument = rest.isEmpty ? nil : String(rest)
        switch name {
        case "join", "j":
            self = words.count == 1 ? .join(words[0]) : .usage("join")
        case "part", "leave":
            self = words.count <= 1 ? .part(words.first) : .usage("part")
        case "msg", "m":
            guard words.count >= 2 else {
                self = .usage("msg")
                return
            }
            let text = rest.drop { $0 != " " }.drop { $0 == " " }
            self = .privateMessage(to: words[0], text: String(text))
        case "query", "q":
            guard let nick = words.first else {
                self = .usage("query")
                return
            }
            let text = rest.drop { $0 != " " }.drop { $0 == " " }
            self = .query(nick, text: text.isEmpty ? nil : String(text))
        case "me":
            self = argument.map { .action($0) } ?? .usage("me")
        case "nick":
            self = words.count == 1 ? .nick(words[0]) : .usage("nick")
        case "away": self = .away
        case "back": self = .back
        case "who", "names": self = .who
        case "history":
            if words.isEmpty {
                self = .history(nil)
            } else if words.count == 1, let count = Int(words[0]), count > 0 {
                self = .history(count)
            } else {
                self = .usage("history")
            }
        case "close": self = .close
        case "clear": self = .clear
        case "search": self = .search(argument)
        case "buffer", "b":
            if words.count == 1, let number = Int(words[0]), number >= 1 { self = .buffer(number) } else { self = .usage("buffer") }
        case "send":
            if words.count == 1 {
                self = .send(to: nil, path: words[0])
            } else if words.count >= 2 {
                self = .send(to: words[0], path: String(rest.drop { $0 != " " }.drop { $0 == " " }))
            } else {
                self = .usage("send")
            }
        case "get":
            guard let first = words.first, let number = Int(first), number >= 1 else {
                self = .usage("get")
                return
            }
            let path = rest.drop { $0 != " " }.drop { $0 == " " }
            self = .get(number, path: path.isEmpty ? nil : String(path))
        case "cancel":
            if words.count == 1, let number = Int(words[0]), number >= 1 { self = .cancel(number) } else { self = .usage("cancel") }
        case "help": self = .help(words.first)
        case "quit", "exit": self = .quit
        default: self = Self.accountOrModeration(name, words: words, rest: rest) ?? .unknown("/" + name)
        }
    }
}
