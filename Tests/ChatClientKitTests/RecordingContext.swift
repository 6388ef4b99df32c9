@testable import ChatClientKit
import ChatProtocol

/// A ``CommandContext`` that writes down what the command table asked of it, as one line per call:
/// the table's handlers are checked without a session, a server or a screen.
class RecordingContext: CommandContext {
    var calls: [String] = []
    var commandRoom: String? = "lobby"
    var conversationNick: String?
    var info = RoomMembers.Info()
    var files: Set<String> = []

    func roomInfo(_ room: String) -> RoomMembers.Info { info }
    func note(_ text: String) { calls.append("note \(text)") }
    func complain(_ text: String) { calls.append("complain \(text)") }
    func request(_ message: ChatMessage, doing what: String) {
        let fields = [message.room.map { "room=\($0)" }, message.to.map { "to=\($0)" }, message.mode.map { "mode=\($0)" },
                      message.text.isEmpty ? nil : "text=\(message.text)"].compactMap { $0 }
        calls.append((["request", message.type] + fields).joined(separator: " ") + " (\(what))")
    }
    func say(_ text: String, action: Bool) { calls.append(action ? "action \(text)" : "say \(text)") }
    func say(_ text: String, inRoom room: String) { calls.append("say in \(room) \(text)") }
    func sendPrivate(_ text: String, to nick: String) { calls.append("private \(nick) \(text)") }
    func join(_ room: String) { calls.append("join \(room)") }
    func part(_ room: String) { calls.append("part \(room)") }
    func setAway(_ reason: String?) { calls.append(reason.map { "away \($0)" } ?? "back") }
    func who() { calls.append("who") }
    func history(_ count: Int?) { calls.append("history \(count.map(String.init) ?? "-")") }
    func askForSecret(_ purpose: SecretPurpose) { calls.append("secret \(purpose)") }
    func isFile(_ path: String) -> Bool { files.contains(path) }
    func send(_ path: String, to nick: String?) { calls.append("send \(path) to \(nick ?? "-")") }
    func get(_ number: Int, into folder: String?) { calls.append("get \(number) into \(folder ?? "-")") }
    func cancel(_ number: Int) { calls.append("cancel \(number)") }
    func quit(_ message: String?) { calls.append("quit" + (message.map { " " + $0 } ?? "")) }
    func ignore(_ nick: String?) { calls.append("ignore \(nick ?? "-")") }
    func unignore(_ nick: String) { calls.append("unignore \(nick)") }
    func lastlog(_ word: String) { calls.append("lastlog \(word)") }
    func urls() { calls.append("urls") }
    func transfers() { calls.append("transfers") }
    func smartFilter(_ on: Bool?) { calls.append("filter \(on.map { $0 ? "on" : "off" } ?? "-")") }
    /// Whether ``searchServer(_:)`` searches on the server (one that offers `search`).
    var searchesOnServer = false
    func searchServer(_ words: String) -> Bool {
        if searchesOnServer { calls.append("server search \(words)") }
        return searchesOnServer
    }
    func change(_ request: MessageRequest) {
        switch request {
        case .edit(let number, let text): calls.append("edit \(number.map(String.init) ?? "-") \(text)")
        case .redact(let number, let reason): calls.append("redact \(number.map(String.init) ?? "-") \(reason)")
        case .react(let number, let value, let added): calls.append("\(added ? "react" : "unreact") \(number.map(String.init) ?? "-") \(value)")
        case .reply(let number, let text): calls.append("reply \(number) \(text)")
        }
    }

    /// Runs a line through the table and returns what it asked for.
    func run(_ line: String) -> [String] {
        calls = []
        ClientCommands.run(line, in: self)
        return calls
    }
}

/// The full-screen UI's side too.
final class RecordingScreenContext: RecordingContext, ScreenCommandContext {
    func query(_ nick: String, text: String?) { calls.append("query \(nick) \(text ?? "-")") }
    func close() { calls.append("close") }
    func clear() { calls.append("clear") }
    func search(_ term: String?) { calls.append("search \(term ?? "-")") }
    func buffer(_ target: String?) { calls.append("buffer \(target ?? "-")") }
    func toggleMemberList() { calls.append("nicklist") }
    func toggleMessageNumbers() { calls.append("numbers") }
    var keyHelp: [String] { ["a key"] }
}
