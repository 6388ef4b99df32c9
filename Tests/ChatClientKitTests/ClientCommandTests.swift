import ChatClientKit
import Testing

struct ClientCommandTests {
    /// Lines parse as IRC users type them.
    @Test func parsesTheCommands() {
        #expect(ClientCommand(parsing: "hello") == .say("hello"))
        #expect(ClientCommand(parsing: "//etc/passwd is a path") == .say("/etc/passwd is a path"))
        #expect(ClientCommand(parsing: "/me waves at  you") == .action("waves at  you"))
        #expect(ClientCommand(parsing: "/join #dev") == .join("#dev"))
        #expect(ClientCommand(parsing: "/JOIN dev") == .join("dev"))
        #expect(ClientCommand(parsing: "/part") == .part(nil))
        #expect(ClientCommand(parsing: "/msg bob hi  there") == .privateMessage(to: "bob", text: "hi  there"))
        #expect(ClientCommand(parsing: "/query bob") == .query("bob", text: nil))
        #expect(ClientCommand(parsing: "/nick bob2") == .nick("bob2"))
        #expect(ClientCommand(parsing: "/history 5") == .history(5))
        #expect(ClientCommand(parsing: "/buffer 12") == .buffer(12))
        #expect(ClientCommand(parsing: "/search deploy now") == .search("deploy now"))
        #expect(ClientCommand(parsing: "/help join") == .help("join"))
    }

    /// A known command used wrongly asks for its usage; an unknown one is named.
    @Test func mistakes() {
        #expect(ClientCommand(parsing: "/join") == .usage("join"))
        #expect(ClientCommand(parsing: "/msg bob") == .usage("msg"))
        #expect(ClientCommand(parsing: "/history lots") == .usage("history"))
        #expect(ClientCommand(parsing: "/frobnicate now") == .unknown("/frobnicate"))
        #expect(ClientCommand.description(of: "/join")?.usage == "/join ROOM")
        #expect(ClientCommand.description(of: "nope") == nil)
    }

    /// `/me` travels as a text prefix that version 1 clients show as it is.
    @Test func actionConvention() {
        #expect(ChatAction.text(for: "waves") == "/me waves")
        #expect(ChatAction.body(of: "/me waves") == "waves")
        #expect(ChatAction.body(of: "/me") == nil)
        #expect(ChatAction.body(of: "/meh") == nil)
        #expect(ChatAction.body(of: "hello") == nil)
    }
}

/// The account and moderation commands (PROTOCOL.md sections 7 and 8).
struct ModerationCommandTests {
    /// Each parses with its arguments; reasons keep their spaces; -server acts on the whole server.
    @Test func parses() {
        #expect(ClientCommand(parsing: "/register") == .register)
        #expect(ClientCommand(parsing: "/login alice") == .login("alice"))
        #expect(ClientCommand(parsing: "/password") == .password)
        #expect(ClientCommand(parsing: "/certificate add") == .certificate(add: true))
        #expect(ClientCommand(parsing: "/claim") == .claim)
        #expect(ClientCommand(parsing: "/topic") == .topic(nil))
        #expect(ClientCommand(parsing: "/topic  the  new topic") == .topic("the  new topic"))
        #expect(ClientCommand(parsing: "/topic -clear") == .topic(""))
        #expect(ClientCommand(parsing: "/kick bob go  away") == .kick(nick: "bob", reason: "go  away", server: false))
        #expect(ClientCommand(parsing: "/kick -server bob bye") == .kick(nick: "bob", reason: "bye", server: true))
        #expect(ClientCommand(parsing: "/ban bob") == .ban(target: "bob", reason: "", server: false))
        #expect(ClientCommand(parsing: "/ban -server troll spam bot") == .ban(target: "troll", reason: "spam bot", server: true))
        #expect(ClientCommand(parsing: "/unban -server troll") == .unban(target: "troll", server: true))
        #expect(ClientCommand(parsing: "/op carol") == .op("carol"))
        #expect(ClientCommand(parsing: "/deop carol") == .deop("carol"))
        #expect(ClientCommand(parsing: "/mode") == .mode(nil))
        #expect(ClientCommand(parsing: "/mode +invite") == .mode("+invite"))
        #expect(ClientCommand(parsing: "/invite dave") == .invite("dave"))
        #expect(ClientCommand(parsing: "/rooms") == .rooms)
        #expect(ClientCommand(parsing: "/whois dave") == .whois("dave"))
    }

    /// A password is never typed on the command line: /register and /password take nothing, /login only the name.
    @Test func passwordsAreNotArguments() {
        #expect(ClientCommand(parsing: "/register hunter22") == .usage("register"))
        #expect(ClientCommand(parsing: "/login alice hunter22") == .usage("login"))
        #expect(ClientCommand(parsing: "/password hunter22") == .usage("password"))
        #expect(ClientCommand(parsing: "/kick") == .usage("kick"))
        #expect(ClientCommand(parsing: "/certificate swap") == .usage("certificate"))
        #expect(ClientCommand.description(of: "ban")?.usage == "/ban [-server] NICK [REASON]")
    }

    /// Errors of sections 7 and 8 are explained in words, the server's text after; version 1 codes keep the server's text.
    @Test func errorsAreExplained() {
        #expect(ErrorExplanation.text(code: "not-invited", serverText: "room 'dev' is invite-only")
            == "The room is invite-only: ask an operator for an /invite (room 'dev' is invite-only)")
        #expect(ErrorExplanation.text(code: "nick-in-use", serverText: "nick 'bob' is taken") == "nick 'bob' is taken")
        #expect(ErrorExplanation.text(code: "bad-login", serverText: "").hasPrefix("Wrong account name or password"))
    }
}
