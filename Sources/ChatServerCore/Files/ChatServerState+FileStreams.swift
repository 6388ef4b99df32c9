import ChatProtocol

/// The first line of a file stream (PROTOCOL.md section 9): an `upload` header is checked before
/// any of its body is read, a `download` is checked for access. Either counts as one message for
/// the flood limit.
extension ChatServerState {
    /// The header of the file stream `key` (``FileStreamHeaderReader``'s result).
    public func fileStreamHeader(_ event: ChatStreamEvent, on key: FileStreamKey, now: Int64) -> [ServerAction] {
        guard let session = clients[key.client] else { return [] }
        var out: [ServerAction] = []
        switch event {
        case .fatal(let framing):
            let reason = framing == .tooLarge ? "file stream header over \(ChatLimits.maxStreamMessageBytes) bytes" : "invalid UTF-8"
            close(session, with: .protocolError, reason: reason, now: now, into: &out)
        case .malformed(let error, let id):
            guard admitFileStream(of: session, on: key, id: id, now: now, into: &out) else { break }
            refuseFileStream(key, error.errorCode, error.reason, id: id, into: &out)
        case .message(let message):
            guard admitFileStream(of: session, on: key, id: message.id, now: now, into: &out) else { break }
            // With a shared store a private file's recipient may be another node's user: found first.
            if message.messageType == .upload, let nick = message.to, activeSession(forNick: nick) == nil,
               ChatValidation.isValidNick(nick) {
                beginUploadRecipientLookup(message, nick: nick, on: key, into: &out)
                return out
            }
            // The records a header is checked against are read from the store first.
            if message.messageType == .upload || message.messageType == .download {
                loadFiles(for: message, on: key, session: session, into: &out)
                return out
            }
            switch message.messageType {
            case .upload: handleUploadHeader(message, on: key, from: session, now: now, into: &out)
            case .download: handleDownload(message, on: key, from: session, into: &out)
            default:
                refuseFileStream(key, .unknownType, "a file stream starts with 'upload' or 'download'", id: message.id, into: &out)
            }
        }
        return out
    }

    /// The flood limit and the client's state: a file stream needs a client that said hello and
    /// speaks the `chat/1` protocol (a `chat` ALPN peer has no files).
    private func admitFileStream(of session: ClientSession, on key: FileStreamKey, id: String?, now: Int64,
                                 into out: inout [ServerAction]) -> Bool {
        guard session.phase == .active, !session.isLegacy else {
            refuseFileStream(key, .notJoined, "say hello with join before opening a file stream", id: id, into: &out)
            return false
        }
        guard session.floodBucket.take(now: now) else {
            refuseFileStream(key, .rateLimited, "too many messages; this file stream was refused", id: id, into: &out)
            strikeForFlooding(session, now: now, into: &out)
            return false
        }
        return true
    }

    /// `{"type":"error",...}` + LF, FIN, and STOP_SENDING for whatever body follows.
    func refuseFileStream(_ key: FileStreamKey, _ code: ErrorCode, _ text: String, id: String?, offset: Int64? = nil,
                          into out: inout [ServerAction]) {
        out.append(.endFileStream(key, fileError(code, text, id: id, offset: offset), stopSending: true))
    }

    func fileError(_ code: ErrorCode, _ text: String, id: String?, offset: Int64? = nil) -> SharedPayload {
        statistics.errorsSent[code, default: 0] += 1
        var error = ChatMessage.error(code: code, text: text, id: id.flatMap { ChatValidation.isValidMessageID($0) ? $0 : nil })
        error.offset = offset
        return SharedPayload(line: error)
    }

    // MARK: Downloads

    func handleDownload(_ message: ChatMessage, on key: FileStreamKey, from session: ClientSession,
                                into out: inout [ServerAction]) {
        guard let fileID = message.file, !fileID.isEmpty, fileID.utf8.count <= ChatLimits.maxMessageIDBytes else {
            refuseFileStream(key, .badField, "download needs 'file'", id: nil, into: &out)
            return
        }
        let stored: StoredFile?
        do {
            stored = try files.file(id: fileID)
        } catch {
            out.append(.log(.error, "file catalog read failed", ["error": "\(error)"]))
            out.append(.endFileStream(key, fileError(.unavailable, "the file store cannot be read now", id: nil), stopSending: true))
            return
        }
        // Anyone who may not download the file learns nothing more than that it does not exist.
        guard let file = stored, mayDownload(file, session) else {
            out.append(.endFileStream(key, fileError(.noSuchFile, "no such file", id: nil), stopSending: true))
            return
        }
        let offset = message.offset ?? 0
        guard offset >= 0, offset <= file.size else {
            refuseFileStream(key, .badOffset, "offset must be 0 to the file's size", id: nil, offset: file.size, into: &out)
            return
        }
        let header = ChatMessage.fileHeader(file: file.id, name: file.name, size: file.size, sha256: file.sha256, offset: offset)
        out.append(.sendDownload(key, DownloadJob(header: SharedPayload(line: header), sha256: file.sha256, offset: offset,
                                                  size: file.size)))
    }

    /// The glue could not open the stored bytes of a download the core allowed (``ServerAction/sendDownload(_:_:)``):
    /// the record is there, its content is not (a folder restored apart from its database, a node
    /// of several on a folder of its own). The client is told `unavailable` before any header.
    public func downloadFailed(_ key: FileStreamKey, reason: String) -> [ServerAction] {
        [.log(.error, "download failed", ["client": String(key.client), "reason": reason]),
         .endFileStream(key, fileError(.unavailable, "the file's bytes cannot be read on this server now", id: nil), stopSending: true)]
    }

    /// Members of the file's room now; the two parties of a private file, by peer (or device: the
    /// digest of the peer id, for a recipient that was on another node) or account.
    func mayDownload(_ file: StoredFile, _ session: ClientSession) -> Bool {
        if let room = file.room { return session.isMember(of: room) }
        if session.peer == file.uploaderPeer || session.peer == file.recipientPeer { return true }
        if let device = file.recipientDevice, peerDigest(session.peer) == device { return true }
        guard let account = session.accountKey else { return false }
        return file.senderAccount.map(ChatValidation.nickKey) == account || file.recipientAccount.map(ChatValidation.nickKey) == account
    }
}
