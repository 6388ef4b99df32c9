import ChatProtocol

/// Uploads (PROTOCOL.md section 9): the header's checks, resume by `offset`, the receipt that
/// makes a repeated upload idempotent, and what happens when the body ends.
extension ChatServerState {
    /// `remote`: the recipient of a private file found on another node of several (looked up
    /// before, ``beginUploadRecipientLookup``).
    func handleUploadHeader(_ message: ChatMessage, on key: FileStreamKey, from session: ClientSession, remote: FileRecipient? = nil,
                            now: Int64, into out: inout [ServerAction]) {
        guard let id = message.id, ChatValidation.isValidMessageID(id) else {
            refuseFileStream(key, .badField, "upload needs an id of 1 to \(ChatLimits.maxMessageIDBytes) ASCII letters, digits, '-', '_', '.' or ':'",
                             id: nil, into: &out)
            return
        }
        guard ChatValidation.isValidFileName(message.text) else {
            refuseFileStream(key, .badField, "text must be a file name of 1 to \(ChatLimits.maxFileNameBytes) bytes without '/' or control characters",
                             id: id, into: &out)
            return
        }
        guard let sha256 = message.sha256, ChatValidation.isValidSHA256(sha256) else {
            refuseFileStream(key, .badField, "sha256 must be 64 lowercase hex digits", id: id, into: &out)
            return
        }
        guard let size = message.size, size >= 0 else {
            refuseFileStream(key, .badField, "size must be a byte count", id: id, into: &out)
            return
        }
        guard size <= configuration.maxFileSize, size <= configuration.filesMaxBytes else {
            refuseFileStream(key, .tooLarge, "files are at most \(min(configuration.maxFileSize, configuration.filesMaxBytes)) bytes here",
                             id: id, into: &out)
            return
        }
        // A completed upload is answered again, announced once (checked before membership: the
        // uploader may not have re-joined yet after a reconnect).
        if let done = storedUpload(peer: session.peer, id: id, into: &out) {
            out.append(.endFileStream(key, SharedPayload(line: .uploadAck(id: id, file: done.id, seq: done.seq, ts: done.ts)),
                                      stopSending: true))
            return
        }
        guard let place = uploadPlace(message, id: id, on: key, from: session, remote: remote, into: &out) else { return }
        // Each upload being received holds a file open: at most so many at once (one taken over
        // by this header gives its place).
        let receiving = activeUploads.values.count { $0.partial.peer != session.peer || $0.partial.id != id }
        guard receiving < configuration.maxUploads else {
            refuseFileStream(key, .unavailable, "the server receives \(configuration.maxUploads) uploads at once now; try again shortly",
                             id: id, into: &out)
            return
        }
        let owner = FileOwner.key(account: session.account, peer: session.peer)
        let offset = message.offset ?? 0
        let held: PartialUpload?
        do {
            held = try files.partial(peer: session.peer, id: id)
        } catch {
            failUploadHeader(key, id: id, error, into: &out)
            return
        }
        var partial = PartialUpload(key: held?.key ?? makeHexKey(), peer: session.peer, id: id, owner: owner,
                                    address: session.address, room: place.room, recipient: place.recipient?.nick, name: message.text,
                                    size: size, sha256: sha256, updated: now)
        let resumes = message.offset != nil && held.map { $0.describesSameUpload(as: partial) } == true
        if message.offset != nil && !resumes {
            // Nothing of this upload is held (or a different file under the same id): start again.
            refuseFileStream(key, .badOffset, "the server holds no bytes of this upload", id: id, offset: 0, into: &out)
            return
        }
        guard offset >= 0, offset <= size else {
            refuseFileStream(key, .badOffset, "offset must be 0 to the file's size", id: id, offset: 0, into: &out)
            return
        }
        do {
            if let refusal = try quotaRefusal(of: partial, replacing: held?.key) {
                refuseFileStream(key, .quotaExceeded, refusal, id: id, into: &out)
                return
            }
            if let held, !resumes {
                // A new upload under the id of an interrupted one: the old bytes go.
                partial.key = makeHexKey()
                out.append(.discardFileBytes(.partial(held.key)))
            }
            // What it may write is spoken for now: the store makes room for it when it saves this.
            try files.savePartial(partial)
        } catch {
            failUploadHeader(key, id: id, error, into: &out)
            return
        }
        // Another stream still receiving this upload (a reconnect raced the old connection's
        // end) gives way: its writing stops before this one's starts.
        for (other, upload) in activeUploads where upload.partial.peer == session.peer && upload.partial.id == id {
            activeUploads[other] = nil
            out.append(.abandonUpload(other))
        }
        activeUploads[key] = ActiveUpload(partial: partial, senderNick: session.nick, senderAccount: session.account,
                                          recipient: place.recipient)
        out.append(.receiveUpload(key, UploadJob(partialKey: partial.key, size: size, sha256: sha256, offset: offset, resumes: resumes,
                                                      keepFree: configuration.diskReserveBytes)))
    }

    /// The room (a member may share there) or the connected recipient of an upload (here, or
    /// `remote` on another node), or nil after refusing it.
    private func uploadPlace(_ message: ChatMessage, id: String, on key: FileStreamKey, from session: ClientSession,
                             remote: FileRecipient?, into out: inout [ServerAction]) -> (room: String?, recipient: FileRecipient?)? {
        if let nick = message.to {
            if let recipient = activeSession(forNick: nick) { return (nil, FileRecipient(recipient)) }
            if let remote, ChatValidation.nickKey(remote.nick) == ChatValidation.nickKey(nick) { return (nil, remote) }
            refuseFileStream(key, .noSuchUser, "no user '\(ChatValidation.excerpt(nick))' is connected", id: id, into: &out)
            return nil
        }
        guard let room = ChatValidation.normalizeRoom(message.roomOrDefault) else {
            refuseFileStream(key, .badRoom, "invalid room name", id: id, into: &out)
            return nil
        }
        guard session.isMember(of: room) else {
            refuseFileStream(key, .notJoined, "you are not in room '\(room)'", id: id, into: &out)
            return nil
        }
        if let (code, reason) = speakingDenial(of: session, in: room) {
            refuseFileStream(key, code, reason, id: id, into: &out)
            return nil
        }
        return (room, nil)
    }

    /// Why `partial` may not begin (PROTOCOL.md section 9 quotas), or nil: its owner's and its
    /// address's stored files and uploads, and everyone's uploads (which stored files cannot make
    /// room for), with it, stay within their limits, in bytes and in uploads. `replacing`: the interrupted upload it
    /// resumes or replaces, which no longer counts.
    private func quotaRefusal(of partial: PartialUpload, replacing: String?) throws -> String? {
        let limit = configuration.maxPartialUploads
        let waiting = "uploads in progress or waiting for a resume (an interrupted one waits an hour)"
        let mine = try files.usage(of: .owner(partial.owner), exceptPartial: replacing)
        if mine.fileBytes + mine.partialBytes + partial.size > configuration.fileQuotaBytes {
            return "this upload would pass your quota of \(configuration.fileQuotaBytes) bytes"
        }
        if mine.partials >= limit { return "you have \(limit) \(waiting)" }
        if !partial.address.isEmpty {
            let address = try files.usage(of: .address(partial.address), exceptPartial: replacing)
            if address.fileBytes + address.partialBytes + partial.size > configuration.fileQuotaPerAddressBytes {
                return "this upload would pass the quota of \(configuration.fileQuotaPerAddressBytes) bytes of your address"
            }
            if address.partials >= limit { return "your address has \(limit) \(waiting)" }
        }
        let everyone = try files.usage(of: .everyone, exceptPartial: replacing)
        if everyone.partialBytes + partial.size > configuration.filesMaxBytes {
            return "uploads in progress and interrupted ones take the server's file space now; try again later"
        }
        if everyone.partials >= configuration.maxPartialUploadsTotal {
            return "the server has \(configuration.maxPartialUploadsTotal) \(waiting); try again later"
        }
        return nil
    }

    private func storedUpload(peer: String, id: String, into out: inout [ServerAction]) -> StoredFile? {
        do {
            return try files.file(uploadedBy: peer, id: id)
        } catch {
            out.append(.log(.error, "file catalog read failed", ["error": "\(error)"]))
            return nil
        }
    }

    private func failUploadHeader(_ key: FileStreamKey, id: String, _ error: any Error, into out: inout [ServerAction]) {
        out.append(.log(.error, "file catalog failed", ["error": "\(error)"]))
        refuseFileStream(key, .unavailable, "the file store cannot take uploads now", id: id, into: &out)
    }
}
