/// The account and moderation commands (PROTOCOL.md sections 7 and 8).
extension ClientCommand {
    /// The command named `name` with its words, or nil when `name` is none of these.
    static func accountOrModeration(_ name: String, words: [String], rest: Substring) -> ClientCommand? {
        switch name {
        case "register": return words.isEmpty ? .register : .usage("register")
        case "login": return words.count == 1 ? .login(words[0]) : .usage("login")
        case "password": return words.isEmpty ? .password : .usage("password")
        case "certificate", "cert":
            guard words.count == 1, words[0] == "add" || words[0] == "remove" else { return .usage("certificate") }
            return .certificate(add: words[0] == "add")
        case "claim": return words.isEmpty ? .claim : .usage("claim")
        case "topic":
            if words.isEmpty { return .topic(nil) }
            return .topic(words == ["-clear"] ? "" : String(rest))
        case "kick", "ban":
            let server = words.first == "-server"
            let arguments = server ? Array(words.dropFirst()) : words
            guard let target = arguments.first else { return .usage(name) }
            let reason = reasonAfter(target, in: rest, skippingFlag: server)
            return name == "kick" ? .kick(nick: target, reason: reason, server: server) : .ban(target: target, reason: reason, server: server)
        case "unban":
            let server = words.first == "-server"
            let arguments = server ? Array(words.dropFirst()) : words
            return arguments.count == 1 ? .unban(target: arguments[0], server: server) : .usage("unban")
        case "op": return words.count == 1 ? .op(words[0]) : .usage("op")
        case "deop": return words.count == 1 ? .deop(words[0]) : .usage("deop")
        case "mode":
            if words.isEmpty { return .mode(nil) }
            return words.count == 1 ? .mode(words[0]) : .usage("mode")
        case "invite": return words.count == 1 ? .invite(words[0]) : .usage("invite")
        case "rooms", "list": return words.isEmpty ? .rooms : .usage("rooms")
        case "whois": return words.count == 1 ? .whois(words[0]) : .usage("whois")
        default: return nil
        }
    }

    /// What follows the target on the line, as typed: the reason of a kick or ban.
    private static func reasonAfter(_ target: String, in rest: Substring, skippingFlag: Bool) -> String {
        var remainder = rest
        if skippingFlag { remainder = remainder.dropFirst("-server".count).drop { $0 == " " } }
        return String(remainder.dropFirst(target.count).drop { $0 == " " })
    }
}
