import ChatTUI
import Glibc

/// The lines typed in the full-screen client, kept across restarts (issue 24, habits), as a
/// shell keeps its history: `$XDG_STATE_HOME/qchat/input_history`, one line a line (a line break
/// inside as `\n`, a backslash as `\\`), 0600. Each line is appended as it is sent; at start the
/// newest ``kept`` are read back. Lines over ``lineLimit`` bytes (pastes) are not kept, and past
/// ``compactAbove`` lines the file is rewritten with the newest ``kept``: it stays under 1 MiB.
/// Passwords never reach it (they are typed apart, never into the input line's history).
struct InputHistoryFile {
    static let kept = 500
    static let compactAbove = 1_000
    static let lineLimit = 1_000
    let path: String
    private var lineCount = 0

    init(options: ClientOptions) {
        path = options.paths.stateDirectory + "/input_history"
    }

    /// The newest lines kept, oldest first; counts the file's lines for compaction.
    mutating func read() -> [String] {
        guard let text = ClientPaths.read(path) else { return [] }
        let lines = text.split(separator: "\n").map { Self.decoded($0) }
        lineCount = lines.count
        return Array(lines.suffix(Self.kept))
    }

    /// Appends a line sent (not one over ``lineLimit``); rewrites the file when it grew past
    /// ``compactAbove``, from `history` (the editor's, newest last).
    mutating func append(_ line: String, history: [String]) {
        guard line.utf8.count <= Self.lineLimit else { return }
        if lineCount + 1 > Self.compactAbove {
            let kept = history.filter { $0.utf8.count <= Self.lineLimit }.suffix(Self.kept)
            ClientPaths.replace(path, with: kept.map { Self.encoded($0) + "\n" }.joined())
            lineCount = kept.count
            return
        }
        guard let slash = path.lastIndex(of: "/"), ClientPaths.makeDirectory(String(path[..<slash])) else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        writeAll(Array((Self.encoded(line) + "\n").utf8), to: descriptor)
        close(descriptor)
        lineCount += 1
    }

    static func encoded(_ line: String) -> String {
        var result = ""
        for character in line {
            switch character {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    static func decoded(_ stored: Substring) -> String {
        var result = ""
        var escaped = false
        for character in stored {
            if escaped {
                result.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
