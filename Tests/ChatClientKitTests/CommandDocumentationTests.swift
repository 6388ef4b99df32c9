import ChatClientKit
import Foundation
import TestSupport
import Testing

/// The README and chat-client(1) list every command of the table (issue 24, defect 17: the man
/// page listed no account or moderation command), so a command added to the table and not to
/// the docs fails here.
struct CommandDocumentationTests {
    static func text(_ path: String) throws -> String {
        // roff writes a hyphen as \- and a backslash as \e.
        try String(contentsOf: BuildPaths.repository.appendingPathComponent(path), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\")
    }

    @Test(arguments: ["README.md", "packaging/man/chat-client.1"])
    func everyCommandIsDocumented(_ path: String) throws {
        let text = try Self.text(path)
        for command in ClientCommands.all {
            #expect(text.contains("/" + command.name), "\(path) does not name /\(command.name)")
        }
    }

    /// The man page gives each command its usage, as /help does.
    @Test func theManPageGivesEachUsage() throws {
        let text = try Self.text("packaging/man/chat-client.1")
        for command in ClientCommands.all {
            #expect(text.contains("\"\(command.usage)\""), "chat-client.1 lacks \(command.usage)")
        }
        for flag in ["--identity", "--no-identity", "--wait", "--trust-on-first-use", "--discover"] {
            #expect(text.contains(flag), "chat-client.1 lacks \(flag)")
        }
        #expect(try Self.text("packaging/man/chat-bot.1").contains("chat-bot logins"))
    }
}
