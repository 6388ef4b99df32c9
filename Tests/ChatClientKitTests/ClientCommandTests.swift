import ChatClientKit
import Testing

struct ClientCommandTests {
    /// Lines parse as IRC users type them.
    @Test func parsesTheCommands() {
        #expect(ClientCommand(parsing: "hello") == .say("hello"))
        #expect(ClientCommand(parsing: "//etc/passwd is a path") == .say("/etc/passwd is a path"))
        #expect(ClientCommand(parsing: "/me waves at  you") == .action("waves at  you"))
        #expect(ClientCommand(parsing: "/join #dev") == .join("#dev"))
        #expect(ClientCommand(parsing: "/JOIN dev") == .join("dev"))
        #expect(ClientCommand(parsing: "/part") == .part(nil))
        #expect(ClientCommand(parsing: "/msg bob hi  there") == .privateMessage(to: "bob", text: "hi  there"))
        #expect(ClientCommand(parsing: "/query bob") == .query("bob", text: nil))
        #expect(ClientCommand(parsing: "/nick bob2") == .nick("bob2"))
        #expect(ClientCommand(parsing: "/history 5") == .history(5))
        #expect(ClientCommand(parsing: "/buffer 12") == .buffer(12))
        #expect(ClientCommand(parsing: "/search deploy now") == .search("deploy now"))
        #expect(ClientCommand(parsing: "/help join") == .help("join"))
    }

    /// A known command used wrongly asks for its usage; an unknown one is named.
    @Test func mistakes() {
        #expect(ClientCommand(parsing: "/join") == .usage("join"))
        #expect(ClientCommand(parsing: "/msg bob") == .usage("msg"))
        #expect(ClientCommand(parsing: "/history lots") == .usage("history"))
        #expect(ClientCommand(parsing: "/frobnicate now") == .unknown("/frobnicate"))
        #expect(ClientCommand.description(of: "/join")?.usage == "/join ROOM")
        #expect(ClientCommand.description(of: "nope") == nil)
    }

    /// `/me` travels as a text prefix that version 1 clients show as it is.
    @Test func actionConvention() {
        #expect(ChatAction.text(for: "waves") == "/me waves")
        #expect(ChatAction.body(of: "/me waves") == "waves")
        #expect(ChatAction.body(of: "/me") == nil)
        #expect(ChatAction.body(of: "/meh") == nil)
        #expect(ChatAction.body(of: "hello") == nil)
    }
}
