extension ClientCommands {
    /// What the word before the cursor is, by the command table (issue 24, Tab completion of
    /// rooms and paths): for `text` (the line up to the cursor), the kind of the argument being
    /// typed, or nil when it is no command's argument (a message, or beyond the arguments). A
    /// path is a path wherever `/send` takes it (after a NICK too: a nick rarely looks like one).
    public static func argumentKind(before text: String) -> ClientCommand.Argument? {
        guard text.hasPrefix("/"), !text.hasPrefix("//"), let nameEnd = text.firstIndex(of: " "),
              let command = named(String(text[..<nameEnd])) else { return nil }
        var rest = text[nameEnd...].drop { $0 == " " }
        if command.takesServerFlag, rest.hasPrefix("-server ") { rest = rest.dropFirst("-server".count).drop { $0 == " " } }
        // Words already typed in full: those before the one the cursor is in.
        let finished = max(0, (CommandWords.split(rest + "x") ?? []).count - 1)
        // A path holds the rest of the line (`/send` reads it so, spaces and all).
        if let pathIndex = command.completes.firstIndex(of: .path), finished >= pathIndex { return .path }
        return finished < command.completes.count ? command.completes[finished] : nil
    }
}
