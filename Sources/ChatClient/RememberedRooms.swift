import ChatClientKit
import ChatProtocol
import Glibc

/// The rooms the full-screen client was in, per server and nick, so that a client started again
/// joins them again (issue 24, habits), after the rooms of the command line or configuration:
/// `$XDG_STATE_HOME/qchat/sessions/<server>/<nick>/rooms`, one room a line, rewritten whole as
/// rooms are joined and left. Not with `--room` (the command line says which rooms), not in line
/// mode (a script says its own). At most ``limit`` rooms; a line that is no room is dropped.
struct RememberedRooms {
    static let limit = 100
    let path: String

    init(options: ClientOptions, nick: String) {
        path = options.paths.sessionDirectory + "/" + PrivateMessageStore.fileName(options.serverKey) + "/"
            + PrivateMessageStore.key(nick) + "/rooms"
    }

    func read() -> [String] {
        guard let text = ClientPaths.read(path) else { return [] }
        return Array(text.split(separator: "\n").compactMap { ChatValidation.normalizeRoom(String($0)) }.prefix(Self.limit))
    }

    func write(_ rooms: [String]) {
        ClientPaths.replace(path, with: rooms.prefix(Self.limit).map { $0 + "\n" }.joined())
    }

    /// The rooms to join at start: those asked for, then those remembered.
    static func joining(_ asked: [String], _ remembered: [String]) -> [String] {
        asked + remembered.filter { !asked.contains($0) }
    }
}
