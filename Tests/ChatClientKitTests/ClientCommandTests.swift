import ChatClientKit
import ChatProtocol
import Testing

/// The one command table (``ClientCommands``): each line asks the mode for what the person meant,
/// whichever mode it is.
struct ClientCommandTests {
    /// Lines parse as IRC users type them.
    @Test func parsesTheCommands() {
        let context = RecordingScreenContext()
        #expect(context.run("hello") == ["say hello"])
        #expect(context.run("//etc/passwd is a path") == ["say /etc/passwd is a path"])
        #expect(context.run("/me waves at  you") == ["action waves at  you"])
        #expect(context.run("/join #dev") == ["join dev"])
        #expect(context.run("/JOIN dev") == ["join dev"])
        #expect(context.run("/j dev") == ["join dev"])
        #expect(context.run("/part") == ["part lobby"])
        #expect(context.run("/part #dev") == ["part dev"])
        #expect(context.run("/msg bob hi  there") == ["private bob hi  there"])
        #expect(context.run("/query bob") == ["query bob -"])
        #expect(context.run("/query bob hello you") == ["query bob hello you"])
        #expect(context.run("/nick bob2") == ["request nick text=bob2 (/nick bob2)"])
        #expect(context.run("/history 5") == ["history 5"])
        #expect(context.run("/history 500") == ["history 200"])
        #expect(context.run("/buffer 12") == ["buffer 12"])
        #expect(context.run("/buffer dev") == ["buffer dev"])
        #expect(context.run("/buffer") == ["buffer -"])
        #expect(context.run("/search deploy now") == ["search deploy now"])
        #expect(context.run("/away") == ["away "])
        #expect(context.run("/away at lunch") == ["away at lunch"])
        #expect(context.run("/back") == ["back"])
        #expect(context.run("/who") == ["who"])
        #expect(context.run("/quit") == ["quit"])
        #expect(context.run("/help join") == ["note /join ROOM: join a room (#room works too) and show it; /join a room you are in shows it (also /j)"])
    }

    /// A known command used wrongly asks for its usage; an unknown one is named.
    @Test func mistakes() {
        let context = RecordingScreenContext()
        #expect(context.run("/join") == ["complain usage: /join ROOM"])
        #expect(context.run("/join a b") == ["complain usage: /join ROOM"])
        #expect(context.run("/join No!") == ["complain 'No!' is not a valid room name: 1 to 32 of a-z, 0-9, _ and -, starting with a letter or digit"])
        #expect(context.run("/msg bob") == ["complain usage: /msg NICK|#ROOM TEXT"])
        #expect(context.run("/history lots") == ["complain usage: /history [N]"])
        #expect(context.run("/frobnicate now") == ["complain unknown command /frobnicate, /help lists them"])
        #expect(ClientCommands.named("/join")?.usage == "/join ROOM")
        #expect(ClientCommands.named("nope") == nil)
        #expect(context.run("/help nope") == ["complain no command /nope, /help lists them"])
    }

    /// Line mode is told which commands need the screen; /part with no room shown closes the
    /// conversation on a screen.
    @Test func screenCommandsInLineMode() {
        let line = RecordingContext()
        #expect(line.run("/clear") == ["complain /clear works in the full-screen client only"])
        #expect(line.run("/buffer 2") == ["complain /buffer works in the full-screen client only"])
        #expect(line.run("/query bob hi") == ["private bob hi"])
        #expect(line.run("/query bob").first?.hasPrefix("complain /query NICK opens a conversation") == true)
        #expect(!ClientCommands.names(fullScreen: false).contains("/clear"))
        #expect(ClientCommands.names(fullScreen: true).contains("/clear"))
        let screen = RecordingScreenContext()
        screen.commandRoom = nil
        screen.conversationNick = "bob"
        #expect(screen.run("/part") == ["close"])
        let help = screen.run("/help")
        #expect(help.contains("note /clear: clear the lines shown in this room") && help.last == "note a key")
        #expect(!line.run("/help").contains { $0.contains("/clear") })
    }

    /// `/send` (issue 24, defect 4): a path with spaces in quotes, with backslashes, or typed as
    /// it is when it names a file, is the path, not a nick and a path.
    /// `/msg #room TEXT` says TEXT in that room (issue 24); `/rooms` lists a room a line, topics
    /// with their commas.
    @Test func messagesToARoomAndTheRoomsListing() {
        let context = RecordingContext()
        #expect(context.run("/msg #Dev hello, dev") == ["say in dev hello, dev"])
        #expect(context.run("/msg #no/good hi").first?.hasPrefix("complain '#no/good' is not a valid room name") == true)
        #expect(context.run("/msg bob hi") == ["private bob hi"])
        let rooms = [RoomListing(room: "dev", members: 3, topic: "builds, deploys"), RoomListing(room: "lobby", members: 5, topic: "")]
        #expect(RoomListing.listing(rooms) { $0 } == "2 public rooms:\n#dev (3): builds, deploys\n#lobby (5)")
        #expect(RoomListing.listing([]) { $0 } == "no public rooms")
    }

    /// Tab completion asks the table what the word before the cursor is (issue 24).
    @Test func argumentKinds() {
        #expect(ClientCommands.argumentKind(before: "/join de") == .room)
        #expect(ClientCommands.argumentKind(before: "/j ") == .room)
        #expect(ClientCommands.argumentKind(before: "/buffer lo") == .room)
        #expect(ClientCommands.argumentKind(before: "/msg al") == .nick)
        #expect(ClientCommands.argumentKind(before: "/msg alice hel") == .text)
        #expect(ClientCommands.argumentKind(before: "/send ~/Doc") == .path)
        #expect(ClientCommands.argumentKind(before: "/send bob my\\ no") == .path)
        #expect(ClientCommands.argumentKind(before: "/get 3") == .number)
        #expect(ClientCommands.argumentKind(before: "/get 3 ~/Down") == .path)
        #expect(ClientCommands.argumentKind(before: "/kick -server ma") == .nick)
        #expect(ClientCommands.argumentKind(before: "/join lobby more") == nil)
        #expect(ClientCommands.argumentKind(before: "hello /join") == nil)
        #expect(ClientCommands.argumentKind(before: "/nosuch x") == nil)
    }

    @Test func sendTakesPathsWithSpaces() {
        let context = RecordingScreenContext()
        context.files = ["/tmp/my notes.txt"]
        #expect(context.run(#"/send "/tmp/my notes.txt""#) == ["send /tmp/my notes.txt to -"])
        #expect(context.run(#"/send '/tmp/my notes.txt'"#) == ["send /tmp/my notes.txt to -"])
        #expect(context.run(#"/send /tmp/my\ notes.txt"#) == ["send /tmp/my notes.txt to -"])
        #expect(context.run("/send /tmp/my notes.txt") == ["send /tmp/my notes.txt to -"])
        #expect(context.run(#"/send bob "/tmp/my notes.txt""#) == ["send /tmp/my notes.txt to bob"])
        #expect(context.run("/send bob /tmp/a.txt") == ["send /tmp/a.txt to bob"])
        #expect(context.run("/send /tmp/a.txt") == ["send /tmp/a.txt to -"])
        #expect(context.run(#"/send "/tmp/a.txt"#).first?.hasPrefix("complain a quote is not closed") == true)
        #expect(context.run("/send bob my  notes.txt") == ["send my  notes.txt to bob"])
        #expect(context.run("/send 9a b c").first?.hasPrefix("complain /send takes one PATH") == true)
        #expect(context.run("/get 3") == ["get 3 into -"])
        #expect(context.run(#"/get 3 "/tmp/my dir""#) == ["get 3 into /tmp/my dir"])
        #expect(context.run("/get 3 /tmp/my dir") == ["get 3 into /tmp/my dir"])
        #expect(context.run("/cancel 3") == ["cancel 3"])
        #expect(context.run("/cancel x") == ["complain usage: /cancel N"])
    }

    /// A shell reads the words of a path so.
    @Test func commandWords() {
        #expect(CommandWords.split(#"a "b c" d\ e 'f\g'"#) == ["a", "b c", "d e", #"f\g"#])
        #expect(CommandWords.split(#""""#) == [""])
        #expect(CommandWords.split(#"a\"#) == nil)
        #expect(CommandWords.split("  ") == [])
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
    /// Each asks for its request with its arguments; reasons keep their spaces; -server acts on
    /// the whole server.
    @Test func requests() {
        let context = RecordingScreenContext()
        #expect(context.run("/register") == ["secret register"])
        #expect(context.run("/login alice") == [#"secret login("alice")"#])
        #expect(context.run("/password") == ["secret changePassword"])
        #expect(context.run("/certificate add") == ["request certificate text=add (/certificate add)"])
        #expect(context.run("/claim") == ["request claim room=lobby (/claim)"])
        #expect(context.run("/topic") == ["note #lobby has no topic"])
        #expect(context.run("/topic  the  new topic") == ["request topic room=lobby text=the  new topic (/topic)"])
        #expect(context.run("/topic -clear") == ["request topic room=lobby (/topic)"])
        #expect(context.run("/kick bob go  away") == ["request kick room=lobby to=bob text=go  away (/kick bob)"])
        #expect(context.run("/kick -server bob bye") == ["request kick to=bob text=bye (/kick bob)"])
        #expect(context.run("/ban -server troll spam bot") == ["request ban to=troll text=spam bot (/ban troll)"])
        #expect(context.run("/ban bob") == ["request ban room=lobby to=bob (/ban bob)"])
        #expect(context.run("/unban -server troll") == ["request unban to=troll (/unban troll)"])
        #expect(context.run("/op carol") == ["request op room=lobby to=carol (/op carol)"])
        #expect(context.run("/mode") == ["note modes of #lobby: none"])
        #expect(context.run("/mode +invite") == ["request mode room=lobby mode=+invite (/mode +invite)"])
        #expect(context.run("/mode +loud") == ["complain a mode is +invite, -invite, +registered or -registered"])
        #expect(context.run("/rooms") == ["request rooms (/rooms)"])
        #expect(context.run("/whois dave").first?.hasPrefix("request whois") == true)
        context.commandRoom = nil
        #expect(context.run("/kick bob") == ["complain moderation commands act on a room: show one first"])
        #expect(context.run("/kick -server bob").first?.hasPrefix("request ") == true)
    }

    /// A password is never typed on the command line: /register and /password take nothing, /login only the name.
    @Test func passwordsAreNotArguments() {
        let context = RecordingScreenContext()
        #expect(context.run("/register hunter22") == ["complain usage: /register"])
        #expect(context.run("/login alice hunter22") == ["complain usage: /login NICK"])
        #expect(context.run("/password hunter22") == ["complain usage: /password"])
        #expect(context.run("/kick") == ["complain usage: /kick [-server] NICK [REASON]"])
        #expect(context.run("/certificate swap") == ["complain usage: /certificate add|remove"])
    }

    /// Errors of sections 7 and 8 say the server's text once, with what to do when there is
    /// something (issue 24, defect 12: "You are banned (you are banned from room 'ops')"); the
    /// client's words when the server gave none; version 1 codes keep the server's text.
    @Test func errorsAreExplained() {
        #expect(ErrorExplanation.text(code: "not-invited", serverText: "room 'dev' is invite-only")
            == "room 'dev' is invite-only: ask an operator for an /invite")
        #expect(ErrorExplanation.text(code: "banned", serverText: "you are banned from room 'ops'") == "you are banned from room 'ops'")
        #expect(ErrorExplanation.text(code: "banned", serverText: "") == "You are banned")
        #expect(ErrorExplanation.text(code: "nick-in-use", serverText: "nick 'bob' is taken") == "nick 'bob' is taken")
        #expect(ErrorExplanation.text(code: "bad-login", serverText: "").hasPrefix("Wrong account name or password"))
    }
}

/// `/ignore` (issue 24, first of the habits).
struct IgnoreTests {
    @Test func commands() {
        let context = RecordingScreenContext()
        #expect(context.run("/ignore carol") == ["ignore carol"])
        #expect(context.run("/ignore") == ["ignore -"])
        #expect(context.run("/unignore carol") == ["unignore carol"])
        #expect(context.run("/ignore no way").first?.hasPrefix("complain usage") == true)
    }

    /// An ignored nick's messages, files, typing and comings and goings are hidden, whatever its
    /// case; others', and the server's answers, are not.
    @Test func whatIsHidden() {
        var list = IgnoreList(["Carol"])
        #expect(!list.add("carol") && list.contains("CAROL"))
        for type in ["msg", "dm", "typing", "file", "joined", "left", "nick"] {
            #expect(list.hides(ChatMessage(type: type, text: "x", sender: "carol", room: "lobby")), "\(type)")
        }
        #expect(!list.hides(ChatMessage(type: "msg", text: "x", sender: "bob", room: "lobby")))
        #expect(!list.hides(ChatMessage(type: "kicked", sender: "carol", room: "lobby", to: "bob")))
        #expect(list.remove("CAROL") && !list.hides(ChatMessage(type: "msg", text: "x", sender: "carol", room: "lobby")))
    }
}

/// The smart filter (issue 24, habits).
struct SmartFilterTests {
    static func event(_ type: String, _ nick: String, at minute: Int64, text: String = "") -> ChatMessage {
        ChatMessage(type: type, text: text, sender: nick, room: "lobby", ts: minute * 60_000)
    }

    /// On: comings and goings of the quiet are hidden, of those who spoke within 10 minutes shown
    /// (also under their new nick), one's own always; off: everything shown.
    @Test func hidesTheQuiet() {
        var filter = SmartFilter(isOn: true)
        let hidden1 = filter.hides(Self.event("joined", "carol", at: 0), ownNick: "bob", now: 0)
        #expect(hidden1)
        let hidden2 = filter.hides(Self.event("joined", "bob", at: 0), ownNick: "bob", now: 0)
        #expect(!hidden2)
        let hidden3 = filter.hides(Self.event("msg", "carol", at: 1, text: "hi"), ownNick: "bob", now: 0)
        #expect(!hidden3)
        let hidden4 = filter.hides(Self.event("nick", "carol", at: 2, text: "caroline"), ownNick: "bob", now: 0)
        #expect(!hidden4)
        let hidden5 = filter.hides(Self.event("left", "caroline", at: 5, text: "quit"), ownNick: "bob", now: 0)
        #expect(!hidden5)
        let hidden6 = filter.hides(Self.event("left", "caroline", at: 13, text: "quit"), ownNick: "bob", now: 0)
        #expect(hidden6)
        filter.isOn = false
        let hidden7 = filter.hides(Self.event("joined", "dave", at: 20), ownNick: "bob", now: 0)
        #expect(!hidden7)
        let context = RecordingScreenContext()
        #expect(context.run("/filter") == ["filter -"] && context.run("/filter on") == ["filter on"])
        #expect(context.run("/filter maybe") == ["complain usage: /filter [on|off]"])
    }
}

/// Away with a reason (issue 24, habits): a private message is answered once an hour per
/// correspondent, never an answer, never one's own.
struct AwayRepliesTests {
    static func dm(from nick: String, _ text: String = "hi") -> ChatMessage {
        ChatMessage(type: "dm", text: text, sender: nick, id: "X", to: "bob")
    }

    @Test func answersOnceAnHour() {
        var replies = AwayReplies()
        #expect(replies.reply(to: Self.dm(from: "alice"), reason: nil, ownNick: "bob", now: 0) == nil)
        let first = replies.reply(to: Self.dm(from: "alice"), reason: "lunch", ownNick: "bob", now: 0)
        #expect(first?.to == "alice" && first?.text == "/me is away: lunch")
        #expect(replies.reply(to: Self.dm(from: "Alice"), reason: "lunch", ownNick: "bob", now: 60_000) == nil)
        #expect(replies.reply(to: Self.dm(from: "alice"), reason: "lunch", ownNick: "bob", now: AwayReplies.interval)?.to == "alice")
        #expect(replies.reply(to: Self.dm(from: "carol", "/me is away: gone"), reason: "lunch", ownNick: "bob", now: 0) == nil)
        #expect(replies.reply(to: Self.dm(from: "bob"), reason: "lunch", ownNick: "bob", now: 0) == nil)
        #expect(replies.reply(to: Self.dm(from: "dave"), reason: "", ownNick: "bob", now: 0)?.text == "/me is away")
    }
}
