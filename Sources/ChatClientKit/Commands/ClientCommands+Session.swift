/// Help and quitting.
extension ClientCommands {
    static let session: [ClientCommand] = [
        ClientCommand("help", takes: "[COMMAND]", words: 0...1, completes: [.command], "list the commands, or explain one") { context, invocation throws(CommandError) in
            for line in try help(invocation[0], fullScreen: context is ScreenCommandContext).get() { context.note(line) }
            if invocation[0] == nil, let screen = context as? ScreenCommandContext { for line in screen.keyHelp { context.note(line) } }
        },
        ClientCommand("quit", aliases: ["exit"], takes: "[MESSAGE]", words: 0...1, rest: true, completes: [.text],
                      "leave, the rooms told MESSAGE as your quit message (waits for messages not yet delivered; Ctrl-C twice quits at once)")
        { context, invocation in
            context.quit(invocation[0])
        },
    ]
}
