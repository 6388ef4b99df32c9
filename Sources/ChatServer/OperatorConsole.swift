import CLIOptions
import ChatProtocol
import ChatServerCore
import Glibc

/// Operator commands read from standard input on the loop: `who`, `kick NICK [REASON]`,
/// `ban [#ROOM] NAME [REASON]`, `unban [#ROOM] NAME`, `op #ROOM ACCOUNT`, `deop #ROOM ACCOUNT`,
/// `register NAME [PASSWORD | sha256:FINGERPRINT]`, `unregister NAME`, `stats`.
enum OperatorConsole {
    /// `register NAME` without a credential: the next line is its password (not echoed on a terminal).
    final class PasswordPrompt {
        var name: String?
        var saved: termios?
    }

    static func attach(to app: ChatServerApp) {
        let flags = fcntl(0, F_GETFL)
        guard flags >= 0, fcntl(0, F_SETFL, flags | O_NONBLOCK) == 0 else { return }
        var pending: [UInt8] = []
        let prompt = PasswordPrompt()
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
                if let name = prompt.name {
                    prompt.name = nil
                    restoreEcho(prompt)
                    register(name, password: line, app: app)
                } else {
                    run(line, app: app, prompt: prompt)
                }
            }
        }
    }

    /// `#dev` (the `#` is what marks a room here) as a valid room name, else nil.
    private static func roomArgument(_ word: String) -> String? {
        guard word.hasPrefix("#") else { return nil }
        return ChatValidation.normalizeRoom(String(word.dropFirst()))
    }

    private static func run(_ line: String, app: ChatServerApp, prompt: PasswordPrompt) {
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
            if command == "ban" {
                // Its answer is among the actions, or comes with a lookup's in the shared store.
                app.perform(app.state.operatorBan(name, room: room, reason: rest.dropFirst().joined(separator: " "), now: now))
                // A node of several reads an account it did not know; the next try finds it.
                app.perform(app.state.loadMissedAccounts())
                return
            }
            let (actions, answer) = app.state.operatorUnban(name, room: room, now: now)
            app.perform(actions)
            app.perform(app.state.loadMissedAccounts())
            Console.line(answer)
        case "op", "deop":
            guard words.count == 3, let room = roomArgument(words[1]) else { return Console.line("usage: \(command) #ROOM ACCOUNT") }
            let (actions, answer) = app.state.operatorSetOperator(words[2], room: room, adding: command == "op", now: unixMilliseconds())
            app.perform(actions)
            app.perform(app.state.loadMissedAccounts())
            Console.line(answer)
        case "register" where words.count >= 2:
            let name = words[1]
            app.perform(app.state.readAccountForConsole(name))
            // The rest of the line as typed: a passphrase keeps its spaces.
            let rest = line.drop { $0 == " " }.dropFirst(command.count).drop { $0 == " " }.dropFirst(name.count).drop { $0 == " " }
            if rest.hasPrefix("sha256:") {
                let fingerprint = String(rest.dropFirst("sha256:".count)).lowercased()
                guard ChatServerConfiguration.isFingerprint(fingerprint) else { return Console.line("a certificate is sha256: and 64 hex digits") }
                app.perform(app.state.operatorRegister(name, passwordHash: nil, certificate: fingerprint, now: unixMilliseconds()))
            } else if !rest.isEmpty {
                register(name, password: String(rest), app: app)
            } else {
                Console.line("password for \(name) (8 to 256 bytes, not shown):")
                prompt.name = name
                hideEcho(prompt)
            }
        case "unregister" where words.count == 2:
            app.perform(app.state.readAccountForConsole(words[1]))
            app.perform(app.state.operatorUnregister(words[1], now: unixMilliseconds()))
        case "stats":
            Console.line("stats " + app.statistics.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        default:
            Console.line("commands: who | kick NICK [REASON] | ban [#ROOM] NAME [REASON] | unban [#ROOM] NAME | op #ROOM ACCOUNT | "
                         + "deop #ROOM ACCOUNT | register NAME [PASSWORD | sha256:FINGERPRINT] | unregister NAME | stats")
        }
    }

    /// Hashes the password off the loop, then stores the account.
    private static func register(_ name: String, password: String, app: ChatServerApp) {
        guard ChatValidation.isAcceptablePassword(password) else { return Console.line("a password is 8 to 256 bytes") }
        app.passwordWorkers.hashForConsole(password) { [unowned app] outcome in
            guard case .hashed(let hash) = outcome else { return Console.line("the password could not be hashed") }
            app.perform(app.state.operatorRegister(name, passwordHash: hash, certificate: nil, now: unixMilliseconds()))
        }
    }

    /// Stops the terminal echoing what is typed (a password), if standard input is a terminal.
    private static func hideEcho(_ prompt: PasswordPrompt) {
        guard isatty(0) == 1 else { return }
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return }
        prompt.saved = settings
        settings.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &settings)
    }

    private static func restoreEcho(_ prompt: PasswordPrompt) {
        guard var saved = prompt.saved else { return }
        tcsetattr(0, TCSANOW, &saved)
        prompt.saved = nil
    }
}
