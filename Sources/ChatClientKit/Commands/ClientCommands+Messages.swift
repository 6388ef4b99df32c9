import ChatProtocol

/// Version 1.2's changes to a message (PROTOCOL.md section 15), in the room or conversation
/// shown. N is the message's number (its seq there): `/numbers` shows them beside the messages in
/// the full-screen client; line mode prints them once the server offers edits. A first word made
/// of digits alone is N when a text follows (`/edit 42 fixed`); to edit the newest own message
/// into a text that starts with a number, name it: `/edit N 42 apples`.
extension ClientCommands {
    static let messages: [ClientCommand] = [
        ClientCommand("edit", takes: "[N] TEXT", words: 1...2, rest: true, completes: [.number, .text],
                      "replace the text of your message N (by default your newest message here)") { context, invocation throws(CommandError) in
            let (number, text) = try numbered(invocation)
            context.change(.edit(number, text: text))
        },
        ClientCommand("redact", takes: "[N] [REASON]", words: 0...2, rest: true, completes: [.number, .text],
                      "remove message N for everyone, its text erased on the server (by default your newest message here; operators: anyone's)")
        { context, invocation throws(CommandError) in
            guard invocation[0] != nil else { return context.change(.redact(nil, reason: "")) }
            let (number, reason) = try numbered(invocation, textRequired: false)
            context.change(.redact(number, reason: reason))
        },
        ClientCommand("react", takes: "[N] EMOJI", words: 1...2, completes: [.number, .word],
                      "react to message N with EMOJI (or +1), by default to the newest message here") { context, invocation throws(CommandError) in
            let (number, value) = try reaction(invocation)
            context.change(.react(number, value, added: true))
        },
        ClientCommand("unreact", takes: "[N] EMOJI", words: 1...2, completes: [.number, .word],
                      "take back your reaction EMOJI to message N (by default the newest message here)") { context, invocation throws(CommandError) in
            let (number, value) = try reaction(invocation)
            context.change(.react(number, value, added: false))
        },
        ClientCommand("reply", takes: "N TEXT", words: 2...2, rest: true, completes: [.number, .text],
                      "answer message N: your message shows the start of it quoted") { context, invocation throws(CommandError) in
            guard let number = messageNumber(invocation.words[0]) else { throw .usage }
            context.change(.reply(number, text: invocation.words[1]))
        },
        ClientCommand("numbers", fullScreenOnly: true, "show each message's number N (for /edit, /reply, /react...) beside it, or hide them again")
        { context, _ in
            (context as? ScreenCommandContext)?.toggleMessageNumbers()
        },
    ]

    /// What a search takes (PROTOCOL.md section 17), said when it is not that.
    public static let searchRule = "a search is 1 to \(ChatLimits.maxSearchWords) words of letters or digits, at most \(ChatLimits.maxSearchTextBytes) bytes"

    /// The commands whose meaning depends on what the server offers (`welcome`'s `features`).
    static let featureCommands: Set<String> = ["edit", "redact", "react", "unreact", "reply", "search"]

    /// Whether `line` is one of ``featureCommands``: typed before the first `welcome`, it waits
    /// for it (line mode), so a script's first lines are not judged against a server not yet met.
    public static func needsServerFeatures(_ line: String) -> Bool {
        guard line.hasPrefix("/"), !line.hasPrefix("//") else { return false }
        let name = String(line.prefix { $0 != " " })
        return named(name).map { featureCommands.contains($0.name) } ?? false
    }

    /// A message number: digits alone, at least 1.
    public static func messageNumber(_ word: String) -> Int64? {
        guard !word.isEmpty, word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int64(word), number >= 1 else { return nil }
        return number
    }

    /// `[N] TEXT`: N when the first word is a number and more follows (or, `textRequired` false,
    /// when it is a number at all).
    static func numbered(_ invocation: ClientCommand.Invocation, textRequired: Bool = true) throws(CommandError) -> (Int64?, String) {
        let rest = String(invocation.rest)
        let words = ClientCommand.split(invocation.rest, limit: 2)
        if let first = words.first, let number = messageNumber(first) {
            if words.count == 2 { return (number, words[1]) }
            if !textRequired { return (number, "") }
        }
        if textRequired, rest.isEmpty { throw .usage }
        return (nil, rest)
    }

    /// `[N] EMOJI`.
    static func reaction(_ invocation: ClientCommand.Invocation) throws(CommandError) -> (Int64?, String) {
        guard invocation.words.count == 2 else { return (nil, invocation.words[0]) }
        guard let number = messageNumber(invocation.words[0]) else { throw .usage }
        return (number, invocation.words[1])
    }
}
