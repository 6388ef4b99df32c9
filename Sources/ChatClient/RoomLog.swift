import ChatTUI
import Glibc

/// Logs of what the full-screen client shows (off by default; `logs = on` or `--logs`): under
/// `$XDG_STATE_HOME/qchat/logs/<host>-<port>/`, one plain-text file per room (or private
/// conversation, `@nick`) and local day, `<room>-<YYYY-MM-DD>.log`, each line its date and time
/// (as weechat's logger writes them, so a line copied or grepped out of its file keeps its day)
/// and the line as the screen shows it, text neutralised (control characters visible), continuation lines of a
/// message indented. Files are the person's alone (0600, in 0700 directories).
final class RoomLog {
    let directory: String
    private let utcOffsetSeconds: Int
    /// One open file per room, reopened when the day changes.
    private var files: [String: (day: String, descriptor: Int32)] = [:]

    init(root: String, server: String, utcOffsetSeconds: Int) {
        directory = root + "/" + PrivateMessageStore.fileName(server)
        self.utcOffsetSeconds = utcOffsetSeconds
        ClientPaths.makeDirectory(directory)
    }

    deinit {
        for file in files.values { close(file.descriptor) }
    }

    /// The file a room's line of that time goes to.
    func path(room: String, at time: Int64) -> String {
        directory + "/" + PrivateMessageStore.fileName(room) + "-" + Self.day.format(time, utcOffsetSeconds: utcOffsetSeconds) + ".log"
    }

    static let day = TimestampFormat.date
    static let clock = TimestampFormat("%Y-%m-%d %H:%M:%S")

    func write(_ line: ChatLine, room: String) {
        guard !line.isRule else { return }
        let day = Self.day.format(line.timestamp, utcOffsetSeconds: utcOffsetSeconds)
        var descriptor = files[room].flatMap { $0.day == day ? $0.descriptor : nil }
        if descriptor == nil {
            if let old = files[room] { close(old.descriptor) }
            let opened = open(path(room: room, at: line.timestamp), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard opened >= 0 else { return }
            files[room] = (day, opened)
            descriptor = opened
        }
        guard let descriptor else { return }
        writeAll(Array(Self.text(of: line, utcOffsetSeconds: utcOffsetSeconds).utf8), to: descriptor)
    }

    /// `YYYY-MM-DD HH:MM:SS <nick> text`, `… * nick action`, `… *nick* private`, `… -- event`,
    /// `… !! error`, one line per line of the text.
    static func text(of line: ChatLine, utcOffsetSeconds: Int) -> String {
        let nick = TextNeutralizer.singleLine.neutralize(line.nick)
        let head: String
        switch line.kind {
        case .event: head = "-- " + (nick.isEmpty ? "" : nick + " ")
        case .error: head = "!! "
        default: head = line.isAction ? "* \(nick) " : line.isPrivate ? "*\(nick)* " : "<\(nick)> "
        }
        let stamp = clock.format(line.timestamp, utcOffsetSeconds: utcOffsetSeconds) + " "
        let rows = TextNeutralizer.multiLine.neutralize(line.text).split(separator: "\n", omittingEmptySubsequences: false)
        let indent = String(repeating: " ", count: stamp.count + 2)
        return rows.enumerated().map { ($0.offset == 0 ? stamp + head : indent) + $0.element + "\n" }.joined()
    }
}
