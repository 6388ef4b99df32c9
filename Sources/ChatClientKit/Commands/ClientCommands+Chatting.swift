import ChatProtocol

/// Rooms, messages and status.
extension ClientCommands {
    static let chatting: [ClientCommand] = [
        ClientCommand("join", aliases: ["j"], takes: "ROOM", words: 1...1, completes: [.room],
                      "join a room (#room works too) and show it; /join a room you are in shows it") { context, invocation throws(CommandError) in
            context.join(try TypedName.room(invocation.words[0]).get())
        },
        ClientCommand("part", aliases: ["leave"], takes: "[ROOM]", words: 0...1, completes: [.room],
                      "leave a room, the one shown by default") { context, invocation throws(CommandError) in
            if let typed = invocation[0] {
                return context.part(try TypedName.room(typed).get())
            }
            if let room = context.commandRoom { return context.part(room) }
            guard let screen = context as? ScreenCommandContext else { throw .usage }
            screen.close()
        },
        ClientCommand("msg", aliases: ["m"], takes: "NICK|#ROOM TEXT", words: 2...2, rest: true, completes: [.nick, .text],
                      "send a private message (its conversation opens), or a message to a room you are in") { context, invocation throws(CommandError) in
            let nick = invocation.words[0]
            if nick.hasPrefix("#") { return context.say(invocation.words[1], inRoom: try TypedName.room(nick).get()) }
            if let problem = TypedName.nickProblem(nick) { throw .message(problem) }
            context.sendPrivate(invocation.words[1], to: nick)
        },
        ClientCommand("query", aliases: ["q"], takes: "NICK [TEXT]", words: 1...2, rest: true, completes: [.nick, .text],
                      "open a private conversation with NICK (line mode: /query NICK TEXT sends TEXT)") { context, invocation throws(CommandError) in
            let nick = invocation.words[0]
            if let problem = TypedName.nickProblem(nick) { throw .message(problem) }
            if let screen = context as? ScreenCommandContext { return screen.query(nick, text: invocation[1]) }
            guard let text = invocation[1] else { throw .message("/query NICK opens a conversation in the full-screen client only; /msg NICK TEXT sends") }
            context.sendPrivate(text, to: nick)
        },
        ClientCommand("me", takes: "ACTION", words: 1...1, rest: true, completes: [.text], "an action: others see '* you ACTION'") { context, invocation in
            context.say(invocation.words[0], action: true)
        },
        ClientCommand("nick", takes: "NEW", words: 1...1, completes: [.word], "change your nick") { context, invocation throws(CommandError) in
            let nick = invocation.words[0]
            if let problem = TypedName.nickProblem(nick) { throw .message(problem) }
            context.request(.nick(nick), doing: "/nick \(nick)")
        },
        ClientCommand("away", takes: "[REASON]", words: 0...1, rest: true, completes: [.text],
                      "show yourself away until /back (the status bar says so); whoever writes to you privately is told the reason, once an hour") { context, invocation throws(CommandError) in
            let reason = invocation[0]
            if let reason, reason.utf8.count > awayReasonLimit { throw .message("a reason is at most \(awayReasonLimit) bytes") }
            context.setAway(reason ?? "")
        },
        ClientCommand("back", "show yourself online again") { context, _ in context.setAway(nil) },
        ClientCommand("who", aliases: ["names"], "list who is in the room (@ operator, ~ away, + logged in), operators first, then those logged in") { context, _ in context.who() },
        ClientCommand("ignore", takes: "[NICK]", words: 0...1, completes: [.nick],
                      "hide what NICK says, shares and types, and their comings and goings (kept in the configuration); alone, list them")
        { context, invocation throws(CommandError) in
            if let nick = invocation[0], let problem = TypedName.nickProblem(nick) { throw .message(problem) }
            context.ignore(invocation[0])
        },
        ClientCommand("unignore", takes: "NICK", words: 1...1, completes: [.nick], "show NICK again") { context, invocation in
            context.unignore(invocation.words[0])
        },
        ClientCommand("filter", takes: "[on|off]", words: 0...1, completes: [.word],
                      "hide the joins, parts and nick changes of people who have not spoken in the room for 10 minutes (smart-filter = on)")
        { context, invocation throws(CommandError) in
            guard let word = invocation[0] else { return context.smartFilter(nil) }
            guard word == "on" || word == "off" else { throw .usage }
            context.smartFilter(word == "on")
        },
        ClientCommand("lastlog", takes: "WORD", words: 1...1, rest: true, completes: [.text],
                      "every line of the room or conversation shown that contains WORD, in a view of its own (line mode: printed again)")
        { context, invocation in
            context.lastlog(invocation.words[0])
        },
        ClientCommand("urls", "every web address of the room or conversation shown, whole, in a view of its own (line mode: printed again)")
        { context, _ in
            context.urls()
        },
        ClientCommand("history", takes: "[N]", words: 0...1, completes: [.number],
                      "ask for the room's last N stored events (default 50, at most 200)") { context, invocation throws(CommandError) in
            guard let typed = invocation[0] else { return context.history(nil) }
            guard let count = Int(typed), count > 0 else { throw .usage }
            context.history(min(count, 200))
        },
    ]

    /// The longest `/away` reason, in bytes (as the protocol's `away` field, PROTOCOL.md section 14).
    public static let awayReasonLimit = 256
}
