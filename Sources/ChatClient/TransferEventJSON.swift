import ChatClientKit
import ChatProtocol
import QuicEngine

/// Line mode's `--json` objects for file transfers (docs/PROTOCOL.md section 9, "Line mode's
/// JSON"): one object a line on standard output, `"type":"transfer"` (a type the protocol never
/// sends, so a script tells them from messages by `type` alone), the `event`, and the transfer:
/// `transfer` (its number), `direction`, `name`, `size`, `done`, `sha256`, `id`, and `path` (the
/// local file: the upload's source, the download's destination), `room` or `to` for an upload,
/// `file` for a download. Per event: `progress` adds `rate` (bytes a second) and `seconds_left`
/// (when known), `finished` an upload's `file` and `seq`, `failed` and `abandoned` a `reason`.
enum TransferEventJSON {
    static func line(_ event: FileTransfers.Event, now: MonotonicTime) -> String {
        switch event {
        case .progress(let transfer):
            var extra = [("rate", String(Int64(transfer.rate(now: now))))]
            if let left = transfer.secondsLeft(now: now) { extra.append(("seconds_left", String(Int64(left.rounded(.up))))) }
            return object("progress", transfer, extra)
        case .resumed(let transfer):
            return object("resumed", transfer)
        case .finished(let transfer, let ack):
            var extra: [(String, String)] = []
            if let file = ack?.file { extra.append(("file", JSONString.quoted(file))) }
            if let seq = ack?.seq { extra.append(("seq", String(seq))) }
            return object("finished", transfer, extra)
        case .failed(let transfer, let reason):
            return object("failed", transfer, [("reason", JSONString.quoted(reason))])
        case .cancelled(let transfer):
            return object("cancelled", transfer)
        case .hashed(let transfer):
            return object("hashed", transfer)
        case .restored(let transfer):
            return object("restored", transfer)
        case .abandoned(let transfer, let reason):
            return object("abandoned", transfer, [("reason", JSONString.quoted(reason))])
        }
    }

    /// `started`: the transfer was accepted (`/send`, `/get`).
    static func started(_ transfer: FileTransfer) -> String { object("started", transfer) }

    private static func object(_ event: String, _ transfer: FileTransfer, _ extra: [(String, String)] = []) -> String {
        var members: [(String, String)] = [
            ("type", "\"transfer\""), ("event", JSONString.quoted(event)), ("transfer", String(transfer.number)),
            ("direction", transfer.isUpload ? "\"upload\"" : "\"download\""), ("name", JSONString.quoted(transfer.name)),
            ("size", String(transfer.size)), ("done", String(transfer.done)), ("sha256", JSONString.quoted(transfer.sha256)),
            ("id", JSONString.quoted(transfer.id)),
        ]
        switch transfer.direction {
        case .upload(let path, let room, let recipient):
            members.append(("path", JSONString.quoted(path)))
            if let recipient { members.append(("to", JSONString.quoted(recipient))) } else if let room { members.append(("room", JSONString.quoted(room))) }
        case .download(let file, let destination):
            members.append(("path", JSONString.quoted(destination)))
            members.append(("file", JSONString.quoted(file)))
        }
        return "{" + (members + extra).map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
