/// Buffers and scrollback: the full-screen UI's own.
extension ClientCommands {
    static let screen: [ClientCommand] = [
        ClientCommand("close", fullScreenOnly: true, "close the private conversation shown (in a room: leave it)") { context, _ in
            (context as? ScreenCommandContext)?.close()
        },
        ClientCommand("clear", fullScreenOnly: true, "clear the lines shown in this room") { context, _ in
            (context as? ScreenCommandContext)?.clear()
        },
        ClientCommand("search", takes: "WORD", words: 0...1, rest: true, completes: [.text], fullScreenOnly: true,
                      "show the last line containing WORD; /search again (or Ctrl-R) for older ones") { context, invocation in
            (context as? ScreenCommandContext)?.search(invocation[0])
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
