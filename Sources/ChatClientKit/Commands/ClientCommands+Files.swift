/// Files (PROTOCOL.md section 9).
extension ClientCommands {
    static let files: [ClientCommand] = [
        ClientCommand("send", takes: "[NICK] PATH", words: 1...1, rest: true, completes: [.path],
                      "share a file in the room shown, or with NICK only; a PATH with spaces in quotes or with \\ before them")
        { context, invocation throws(CommandError) in
            // A path with spaces typed as it is, naming a file, is that file (not a nick and a path).
            if invocation.rest.contains(" "), context.isFile(String(invocation.rest)) { return context.send(String(invocation.rest), to: nil) }
            guard let words = CommandWords.split(invocation.rest) else { throw .message("a quote is not closed: /send [NICK] \"PATH WITH SPACES\"") }
            switch words.count {
            case 1: context.send(words[0], to: nil)
            case 2:
                if let problem = TypedName.nickProblem(words[0]) { throw .message(problem) }
                context.send(words[1], to: words[0])
            default:
                // As before quotes were read: NICK, then the rest of the line as the path.
                let nick = invocation.rest.prefix { $0 != " " }
                guard TypedName.nickProblem(String(nick)) == nil, !invocation.rest.contains("\""), !invocation.rest.contains("'") else {
                    throw .message("/send takes one PATH (and a NICK before it); put a path with spaces in quotes: /send \"PATH WITH SPACES\"")
                }
                context.send(String(invocation.rest.dropFirst(nick.count).drop { $0 == " " }), to: String(nick))
            }
        },
        ClientCommand("get", takes: "N [FOLDER]", words: 1...2, rest: true, completes: [.number, .path],
                      "download shared file N (its line shows [file N]) into FOLDER (default $XDG_DOWNLOAD_DIR or ~/Downloads); /cancel N stops it")
        { context, invocation throws(CommandError) in
            guard let number = Int(invocation.words[0]), number >= 1 else { throw .usage }
            var folder = invocation[1]
            // Quotes and backslashes are read as a shell reads them; a folder typed with bare spaces is taken as it is.
            if let typed = folder, let words = CommandWords.split(Substring(typed)), words.count == 1 { folder = words[0] }
            context.get(number, into: folder)
        },
        ClientCommand("transfers", aliases: ["xfer"], "list the transfers running, with their progress, and those that ended in this run")
        { context, _ in
            context.transfers()
        },
        ClientCommand("cancel", takes: "N", words: 1...1, completes: [.number], "stop upload or download N") { context, invocation throws(CommandError) in
            guard let number = Int(invocation.words[0]), number >= 1 else { throw .usage }
            context.cancel(number)
        },
    ]
}
