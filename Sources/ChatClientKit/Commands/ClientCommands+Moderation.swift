import ChatProtocol

/// Moderation (PROTOCOL.md section 8), in the room shown; with `-server`, of the whole server
/// (server operators).
extension ClientCommands {
    static let moderation: [ClientCommand] = [
        ClientCommand("claim", "become the owner of the room shown, when it has none") { context, _ throws(CommandError) in
            let room = try room(of: context)
            context.request(.claim(room: room), doing: "/claim")
        },
        ClientCommand("topic", takes: "[TEXT | -clear]", words: 0...1, rest: true, completes: [.text],
                      "show the room's topic, set it, or clear it") { context, invocation throws(CommandError) in
            let room = try room(of: context)
            guard let text = invocation[0] else {
                return context.note(context.roomInfo(room).topic.map { "topic of #\(room): \($0)" } ?? "#\(room) has no topic")
            }
            context.request(.topic(room: room, text: text == "-clear" ? "" : text), doing: "/topic")
        },
        ClientCommand("kick", takes: "[-server] NICK [REASON]", words: 1...2, rest: true, serverFlag: true, completes: [.nick, .text],
                      "remove NICK from the room (-server: from the server; operators only)") { context, invocation throws(CommandError) in
            let room = invocation.server ? nil : try room(of: context)
            let nick = invocation.words[0]
            context.request(.kick(room: room, nick: nick, reason: invocation[1] ?? ""), doing: "/kick \(nick)")
        },
        ClientCommand("ban", takes: "[-server] NICK [REASON]", words: 1...2, rest: true, serverFlag: true, completes: [.nick, .text],
                      "ban NICK's account (a guest: its device) from the room, or the server") { context, invocation throws(CommandError) in
            let room = invocation.server ? nil : try room(of: context)
            let target = invocation.words[0]
            context.request(.ban(room: room, target: target, reason: invocation[1] ?? ""), doing: "/ban \(target)")
        },
        ClientCommand("unban", takes: "[-server] NAME", words: 1...1, serverFlag: true, completes: [.word],
                      "lift a ban of the room, or of the server") { context, invocation throws(CommandError) in
            let room = invocation.server ? nil : try room(of: context)
            context.request(.unban(room: room, target: invocation.words[0]), doing: "/unban \(invocation.words[0])")
        },
        ClientCommand("op", takes: "NICK", words: 1...1, completes: [.nick],
                      "make NICK's account an operator of the room (owner only)") { context, invocation throws(CommandError) in
            context.request(.op(room: try room(of: context), account: invocation.words[0]), doing: "/op \(invocation.words[0])")
        },
        ClientCommand("deop", takes: "NICK", words: 1...1, completes: [.nick], "take operator status back (owner only)") { context, invocation throws(CommandError) in
            context.request(.deop(room: try room(of: context), account: invocation.words[0]), doing: "/deop \(invocation.words[0])")
        },
        ClientCommand("mode", takes: "[+|-invite | +|-registered]", words: 0...1, completes: [.word],
                      "show the room's modes, or change one (invite-only, logged-in users only)") { context, invocation throws(CommandError) in
            let room = try room(of: context)
            guard let change = invocation[0] else {
                let modes = context.roomInfo(room).modes
                return context.note("modes of #\(room): " + (modes.isEmpty ? "none" : modes.map { "+" + $0 }.joined(separator: " ")))
            }
            guard RoomModeChange(change) != nil else { throw .message("a mode is +invite, -invite, +registered or -registered") }
            context.request(.mode(room: room, change), doing: "/mode \(change)")
        },
        ClientCommand("invite", takes: "NICK", words: 1...1, completes: [.nick], "let NICK into the room when it is invite-only") { context, invocation throws(CommandError) in
            context.request(.invite(room: try room(of: context), nick: invocation.words[0]), doing: "/invite \(invocation.words[0])")
        },
        ClientCommand("rooms", aliases: ["list"], "list the rooms that are not invite-only, with their topics") { context, _ in
            context.request(.listRooms(), doing: "/rooms")
        },
        ClientCommand("whois", takes: "NICK", words: 1...1, completes: [.nick], "who NICK is: account, status, rooms") { context, invocation in
            context.request(.whois(invocation.words[0]), doing: "/whois \(invocation.words[0])")
        },
    ]

    /// The room a moderation command acts on: the one shown.
    static func room(of context: CommandContext) throws(CommandError) -> String {
        guard let room = context.commandRoom else { throw .message("moderation commands act on a room: show one first") }
        return room
    }
}
