import CLIOptions
import ChatServerCore
import Glibc

/// Operator commands read from standard input on the loop: `who`, `kick NICK [REASON]`, `stats`.
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

    private static func run(_ line: String, app: ChatServerApp) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let command = words.first else { return }
        switch command {
        case "who":
            let users = app.state.who()
            Console.line("\(users.count) connected")
            for user in users { Console.line("\(user.nick) \(user.status) \(user.rooms.joined(separator: ","))") }
        case "kick" where words.count >= 2:
            let reason = words.dropFirst(2).joined(separator: " ")
            app.perform(app.state.kick(nick: words[1], reason: reason.isEmpty ? "kicked by operator" : reason, now: unixMilliseconds()))
        case "stats":
            Console.line("stats " + app.statistics.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        default:
            Console.line("commands: who | kick NICK [REASON] | stats")
        }
    }
}
