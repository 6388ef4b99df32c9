import ChatClientKit
import ChatProtocol

/// `/ignore` and `/unignore` for both modes: the list (``IgnoreList``) and the configuration line
/// that keeps it (`ignore =`, ``ConfigurationWriter``). Each returns what to tell the person.
struct IgnoreSetting {
    private(set) var list: IgnoreList
    let path: String

    init(options: ClientOptions) {
        list = IgnoreList(options.ignored)
        path = options.configurationPath
    }

    /// `/ignore NICK`, or the list (nil).
    mutating func ignore(_ nick: String?, ownNick: String) -> String {
        guard let nick else {
            return list.nicks.isEmpty ? "you ignore nobody" : "you ignore " + list.nicks.joined(separator: ", ") + " (/unignore NICK)"
        }
        if ChatValidation.nickKey(nick) == ChatValidation.nickKey(ownNick) { return "you cannot ignore yourself" }
        guard list.add(nick) else {
            return list.contains(nick) ? "you ignore \(nick) already" : "you ignore \(IgnoreList.limit) nicks already; /unignore one first"
        }
        return "ignoring \(nick): nothing of theirs is shown (/unignore \(nick) to see them again)" + saved()
    }

    mutating func unignore(_ nick: String) -> String {
        guard list.remove(nick) else { return "you do not ignore \(nick)" }
        return "no longer ignoring \(nick)" + saved()
    }

    private func saved() -> String {
        ConfigurationWriter.set("ignore", to: list.nicks, in: path).map { "; for this run only: \($0)" } ?? ""
    }
}
