import ChatProtocol
import Glibc

/// The client's small local store of private messages, so a conversation survives a restart
/// (the server keeps no `dm` history): under `$XDG_STATE_HOME/qchat/private/<host>-<port>/`, one
/// file per correspondent (its nick lower-cased) holding the conversation's messages as JSON lines
/// (the protocol's own `dm` objects), and `open` listing the conversations open when the client
/// quit, reopened at start. Each conversation keeps its newest ``limit`` messages. Files are the
/// person's alone (0600, in 0700 directories). A store that cannot be written is given up
/// silently: private messages still work, they are just not kept.
final class PrivateMessageStore {
    static let limit = 200

    let directory: String
    private var counts: [String: Int] = [:]

    init(root: String, server: String) {
        directory = root + "/" + Self.fileName(server)
        ClientPaths.makeDirectory(directory)
    }

    /// The stored messages with `nick`, oldest first.
    func conversation(with nick: String) -> [ChatMessage] {
        guard let text = ClientPaths.read(path(for: nick)) else { return [] }
        let messages = text.split(separator: "\n").compactMap { try? ChatMessage.decode(Array($0.utf8)) }
            .filter { $0.messageType == .dm }
        counts[Self.key(nick)] = messages.count
        return Array(messages.suffix(Self.limit))
    }

    /// Appends one message (`sender` is who wrote it, `to` who got it) to the conversation with `nick`.
    func append(_ message: ChatMessage, conversationWith nick: String) {
        let key = Self.key(nick)
        if counts[key] == nil { _ = conversation(with: nick) }
        if (counts[key] ?? 0) >= 2 * Self.limit {
            // Compact: keep the newest `limit`.
            let kept = conversation(with: nick) + [message]
            write(kept.suffix(Self.limit).map { String(decoding: $0.encodedDatagram(), as: UTF8.self) + "\n" }.joined(), to: path(for: nick),
                  appending: false)
            counts[key] = min(kept.count, Self.limit)
            return
        }
        write(String(decoding: message.encodedDatagram(), as: UTF8.self) + "\n", to: path(for: nick), appending: true)
        counts[key, default: 0] += 1
    }

    /// The conversations to reopen at start.
    func openConversations() -> [String] {
        (ClientPaths.read(directory + "/open") ?? "").split(separator: "\n").map(String.init).filter(ChatValidation.isValidNick)
    }

    func setOpenConversations(_ nicks: [String]) {
        write(nicks.map { $0 + "\n" }.joined(), to: directory + "/open", appending: false)
    }

    private func path(for nick: String) -> String {
        directory + "/" + Self.key(nick)
    }

    /// Nicks are letters, digits, `_` and `-` (checked on the way in), so they make safe file names.
    static func key(_ nick: String) -> String {
        fileName(ChatValidation.nickKey(nick))
    }

    /// Anything but letters, digits, `.`, `_`, `-` and `@` becomes `_`; never `.` or `..`.
    static func fileName(_ text: String) -> String {
        let name = String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) ? $0 : "_" })
        return name.allSatisfy { $0 == "." } ? "_" + name : name
    }

    private func write(_ text: String, to path: String, appending: Bool) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC), 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        writeAll(Array(text.utf8), to: descriptor)
    }
}

/// Writes all bytes to a descriptor, retrying on EINTR; gives up on any other error.
func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
