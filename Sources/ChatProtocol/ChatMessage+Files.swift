/// The messages of file streams and file announcements (PROTOCOL.md section 9).
extension ChatMessage {
    /// The header of an upload stream: to a room, or with `to` to one user; `offset` resumes.
    public static func upload(id: String, room: String? = nil, to recipient: String? = nil, name: String, size: Int64,
                              sha256: String, offset: Int64? = nil) -> ChatMessage {
        ChatMessage(type: MessageType.upload.rawValue, text: name, room: room, id: id, to: recipient, file: nil, size: size,
                    sha256: sha256, offset: offset)
    }

    /// The header of a download stream.
    public static func download(file: String, offset: Int64? = nil) -> ChatMessage {
        ChatMessage(type: MessageType.download.rawValue, file: file, offset: offset)
    }

    /// The server's answer on an upload stream once the file is stored (`seq` for a room file).
    public static func uploadAck(id: String, file: String, seq: Int64?, ts: Int64) -> ChatMessage {
        ChatMessage(type: MessageType.ack.rawValue, id: id, seq: seq, ts: ts, file: file)
    }

    /// A stored file as a room event (with `room` and `seq`) or, with `to`, a private notice.
    public static func fileAnnouncement(file: String, name: String, size: Int64, sha256: String, sender: String, id: String?,
                                        room: String?, to recipient: String?, seq: Int64?, ts: Int64,
                                        account: String?) -> ChatMessage {
        ChatMessage(type: MessageType.file.rawValue, text: name, sender: sender, room: room, id: id, seq: seq, ts: ts,
                    to: recipient, account: account, file: file, size: size, sha256: sha256)
    }

    /// The first line of a download's answer, then bytes `offset` to `size`.
    public static func fileHeader(file: String, name: String, size: Int64, sha256: String, offset: Int64) -> ChatMessage {
        ChatMessage(type: MessageType.file.rawValue, text: name, file: file, size: size, sha256: sha256, offset: offset)
    }
}
