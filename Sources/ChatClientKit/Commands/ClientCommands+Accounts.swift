import ChatProtocol

/// Accounts (PROTOCOL.md section 7): passwords are asked for, never typed on the command line.
extension ClientCommands {
    static let accounts: [ClientCommand] = [
        ClientCommand("register",
                      "register your nick as an account (asks for a password; your identity certificate logs you in from then on)") { context, _ in
            context.askForSecret(.register)
        },
        ClientCommand("login", takes: "NICK", words: 1...1, completes: [.nick],
                      "log in to the account NICK (asks for its password) and take its nick") { context, invocation throws(CommandError) in
            let name = invocation.words[0]
            if let problem = TypedName.nickProblem(name) { throw .message(problem) }
            context.askForSecret(.login(name))
        },
        ClientCommand("password", "change your account's password (asks for the new one)") { context, _ in
            context.askForSecret(.changePassword)
        },
        ClientCommand("certificate", aliases: ["cert"], takes: "add|remove", words: 1...1, completes: [.word],
                      "bind this device's identity to your account, or unbind it") { context, invocation throws(CommandError) in
            guard ["add", "remove"].contains(invocation.words[0]) else { throw .usage }
            context.request(.certificate(add: invocation.words[0] == "add"), doing: "/certificate \(invocation.words[0])")
        },
    ]
}
