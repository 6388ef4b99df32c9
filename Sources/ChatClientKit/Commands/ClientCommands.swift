/// chat-client's commands, one table for every mode (see ``ClientCommand``), and the one place a
/// typed line becomes what it asks for.
public enum ClientCommands {
    /// Every command, in the order `/help` lists them.
    public static let all: [ClientCommand] = chatting + messages + screen + accounts + moderation + files + session

    /// The command named `name` (with or without its slash, any case, or one of its aliases).
    public static func named(_ name: String) -> ClientCommand? {
        let bare = (name.hasPrefix("/") ? String(name.dropFirst()) : name).lowercased()
        return all.first { $0.name == bare || $0.aliases.contains(bare) }
    }

    /// The commands with their slash, for Tab completion; line mode's without the full-screen ones.
    public static func names(fullScreen: Bool) -> [String] {
        all.filter { fullScreen || !$0.fullScreenOnly }.map { "/" + $0.name }
    }

    /// Carries out one typed line: a message to the room or conversation shown, or a command
    /// (`//text` sends `/text`). Mistakes are said through ``CommandContext/complain(_:)``;
    /// nothing is sent then.
    public static func run(_ line: String, in context: CommandContext) {
        guard !line.isEmpty else { return }
        guard line.hasPrefix("/"), !line.hasPrefix("//") else {
            return context.say(line.hasPrefix("//") ? String(line.dropFirst()) : line, action: false)
        }
        let nameEnd = line.firstIndex(of: " ") ?? line.endIndex
        let typedName = String(line[..<nameEnd])
        guard let command = named(typedName) else { return context.complain("unknown command \(typedName), /help lists them") }
        if command.fullScreenOnly && !(context is ScreenCommandContext) {
            return context.complain("/\(command.name) works in the full-screen client only")
        }
        guard let invocation = invocation(of: command, rest: line[nameEnd...]) else {
            return context.complain("usage: \(command.usage)")
        }
        do {
            try command.handler(context, invocation)
        } catch {
            switch error {
            case .usage: context.complain("usage: \(command.usage)")
            case .message(let text): context.complain(text)
            }
        }
    }

    /// The command's words, or nil when there are too few or too many.
    static func invocation(of command: ClientCommand, rest typed: Substring) -> ClientCommand.Invocation? {
        var rest = typed.drop { $0 == " " }
        var server = false
        if command.takesServerFlag, rest == "-server" || rest.hasPrefix("-server ") {
            server = true
            rest = rest.dropFirst("-server".count).drop { $0 == " " }
        }
        let words = ClientCommand.split(rest, limit: command.lastTakesRest ? command.words.upperBound : .max)
        guard command.words.contains(words.count) else { return nil }
        return ClientCommand.Invocation(words: words, rest: rest, server: server)
    }

    /// `/help`: every command (those of the mode), or one.
    public static func help(_ name: String?, fullScreen: Bool) -> Result<[String], CommandError> {
        if let name {
            guard let command = named(name) else { return .failure(.message("no command /\(name), /help lists them")) }
            let aliases = command.aliases.isEmpty ? "" : " (also " + command.aliases.map { "/" + $0 }.joined(separator: ", ") + ")"
            return .success(["\(command.usage): \(command.summary)\(aliases)"])
        }
        return .success(all.filter { fullScreen || !$0.fullScreenOnly }.map { "\($0.usage): \($0.summary)" }
            + ["//text sends a line that starts with /; /help COMMAND explains one"])
    }
}
