/// Buffers and scrollback: the full-screen UI's own.
extension ClientCommands {
    static let screen: [ClientCommand] = [
        ClientCommand("close", fullScreenOnly: true, "close the private conversation shown (in a room: leave it)") { context, _ in
            (context as? ScreenCommandContext)?.close()
        },
        ClientCommand("clear", fullScreenOnly: true, "clear the lines shown in this room") { context, _ in
            (context as? ScreenCommandContext)?.clear()
        },
        ClientCommand("search", takes: "WORDS", words: 0...1, rest: true, completes: [.text],
                      "find the messages of the room or conversation shown with every one of WORDS: on a server that searches, in a view (Enter shows the newest in its place, N Enter message N); else the last line shown containing WORDS, /search again (or Ctrl-R) for older ones")
        { context, invocation throws(CommandError) in
            if let words = invocation[0], context.searchServer(words) { return }
            guard let screen = context as? ScreenCommandContext else {
                throw .message(invocation[0] == nil ? "usage: /search WORDS"
                    : "this server does not search (a version 1.2 feature); /lastlog WORD finds it in what was printed")
            }
            screen.search(invocation[0])
        },
        ClientCommand("nicklist", fullScreenOnly: true, "hide the member list (so that text and web addresses take the whole width), or show it again")
        { context, _ in
            (context as? ScreenCommandContext)?.toggleMemberList()
        },
        ClientCommand("buffer", aliases: ["b", "buffers"], takes: "[N | NAME]", words: 0...1, completes: [.room], fullScreenOnly: true,
                      "show room or conversation number N, or the one whose name contains NAME; without either, list them")
        { context, invocation in
            (context as? ScreenCommandContext)?.buffer(invocation[0])
        },
    ]
}
