import CLIOptions
import ChatProtocol
import ChatServerCore
import Glibc

/// Operator commands read from standard input on the loop: `who`, `kick NICK [REASON]`,
/// `ban [#ROOM] NAME [REASON]`, `unban [#ROOM] NAME`, `op #ROOM ACCOUNT`, `deop #ROOM ACCOUNT`, `stats`.
enum OperatorConsole {
    static func attach(to app: ChatServerApp) {
        let flags = fcntl(0, F_GETFL)
        guard flags >= 0, fcntl(0, F_SETFL, flags | O_NONBLOCK) == 0 else { return }
        var pending: [UInt8] = []
        try? app.loop.watchReadable(0) { [unowned app] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(0, &buffer, buffer.count)
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                app.loop.unwatch(0)
                return
            }
            guard count > 0 else { return }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                run(line, app: app)
            }
        }
    }

    /// `#dev` (the `#` is what marks a room here) as a valid room name, else nil.
    private static func roomArgument(_ word: String) -> String? {
        guard word.hasPrefix("#") else { return nil }
        return ChatValidation.normalizeRoom(String(word.dropFirst()))
    }

    private static func run(_ line: String, app: ChatServerApp) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let command = words.first else { return }
        switch command {
        case "who":
            let users = app.state.who()
            Console.line("\(users.count) connected")
            for user in users {
                let account = user.account.map { " account=\($0)" } ?? ""
                Console.line("\(user.nick) \(user.status) \(user.rooms.joined(separator: ","))\(account)")
            }
        case "kick" where words.count >= 2:
            let reason = words.dropFirst(2).joined(separator: " ")
            app.perform(app.state.kick(nick: words[1], reason: reason.isEmpty ? "kicked by operator" : reason, now: unixMilliseconds()))
        case "ban", "unban":
            // `ban #dev bob spam`: a room ban; `ban bob spam`: a server ban.
            let room = words.count >= 2 ? roomArgument(words[1]) : nil
            let rest = Array(words.dropFirst(room == nil ? 1 : 2))
            guard let name = rest.first else { return Console.line("usage: \(command) [#ROOM] NAME\(command == "ban" ? " [REASON]" : "")") }
            let now = unixMilliseconds()
            let (actions, answer) = command == "ban"
                ? app.state.operatorBan(name, room: room, reason: rest.dropFirst().joined(separator: " "), now: now)
                : app.state.operatorUnban(name, room: room, now: now)
            app.perform(actions)
            // A node of several reads an account it did not know; the next try finds it.
            app.perform(app.state.loadMissedAccounts())
            Console.line(answer)
        case "op", "deop":
            guard words.count == 3, let room = roomArgument(words[1]) else { return Console.line("usage: \(command) #ROOM ACCOUNT") }
            let (actions, answer) = app.state.operatorSetOperator(words[2], room: room, adding: command == "op", now: unixMilliseconds())
            app.perform(actions)
            app.perform(app.state.loadMissedAccounts())
            Console.line(answer)
        case "stats":
            Console.line("stats " + app.statistics.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        default:
            Console.line("commands: who | kick NICK [REASON] | ban [#ROOM] NAME [REASON] | unban [#ROOM] NAME | op #ROOM ACCOUNT | "
                         + "deop #ROOM ACCOUNT | stats")
        }
    }
}
