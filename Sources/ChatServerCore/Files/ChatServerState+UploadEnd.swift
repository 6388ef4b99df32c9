import ChatProtocol

/// The end of an upload's body (PROTOCOL.md section 9): store and announce, or explain on the
/// stream; interrupted bytes wait for a resume; `--files-max-bytes` evicts the oldest files.
extension ChatServerState {
    /// The glue's report on an upload it was receiving (``ServerAction/receiveUpload(_:_:)``),
    /// one for each, also when the connection went away (`.interrupted`). A report on a stream
    /// the core no longer tracks (the upload was abandoned) does nothing.
    public func uploadEnded(_ key: FileStreamKey, _ outcome: UploadOutcome, now: Int64) -> [ServerAction] {
        var out = uploadEndedActions(key, outcome, now: now)
        writeSharedPartials(into: &out)
        return out
    }

    private func uploadEndedActions(_ key: FileStreamKey, _ outcome: UploadOutcome, now: Int64) -> [ServerAction] {
        guard let upload = activeUploads.removeValue(forKey: key) else { return [] }
        var out: [ServerAction] = []
        let partial = upload.partial
        switch outcome {
        case .stored:
            forgetPartial(partial, into: &out)
            storeUpload(upload, on: key, now: now, into: &out)
        case .badChecksum:
            forgetPartial(partial, into: &out)
            out.append(.endFileStream(key, fileError(.badChecksum, "the bytes do not have the SHA-256 of the header", id: partial.id),
                                      stopSending: false))
        case .incomplete(let received):
            forgetPartial(partial, into: &out)
            out.append(.endFileStream(key, fileError(.incomplete, "the stream ended after \(received) of \(partial.size) bytes",
                                                     id: partial.id), stopSending: false))
        case .tooLong:
            forgetPartial(partial, into: &out)
            out.append(.endFileStream(key, fileError(.tooLarge, "more bytes than the header's size", id: partial.id), stopSending: true))
        case .badOffset(let held):
            // The record stays: the bytes are still held, and the client starts again from them.
            out.append(.endFileStream(key, fileError(.badOffset, "the server holds \(held) bytes of this upload", id: partial.id,
                                                     offset: held), stopSending: true))
        case .interrupted(let held):
            keepInterrupted(partial, held: held, now: now, into: &out)
        case .lowOnDisk(let held):
            // The client is told to stop; what it sent waits for a resume once there is room.
            if held > 0 { keepInterrupted(partial, held: held, now: now, into: &out) } else { forgetPartial(partial, into: &out) }
            out.append(.log(.warning, "upload stopped: the disk is nearly full", ["stream": key.description,
                                                                                  "reserve": String(configuration.diskReserveBytes)]))
            out.append(.endFileStream(key, fileError(.quotaExceeded, "the server's disk is nearly full: uploads are refused until it has room",
                                                     id: partial.id, offset: held > 0 ? held : nil), stopSending: true))
        case .failed(let reason):
            forgetPartial(partial, into: &out)
            out.append(.log(.error, "upload failed on disk", ["stream": key.description, "reason": reason]))
            out.append(.endFileStream(key, fileError(.unavailable, "the server cannot store this file now", id: partial.id),
                                      stopSending: true))
        }
        return out
    }

    /// An interrupted upload's record waits for a resume, charged the bytes its partial file holds.
    private func keepInterrupted(_ partial: PartialUpload, held: Int64, now: Int64, into out: inout [ServerAction]) {
        var kept = partial
        kept.updated = now
        kept.charged = held
        do {
            try files.savePartial(kept)
        } catch {
            out.append(.log(.error, "file catalog write failed", ["error": "\(error)"]))
        }
    }

    /// Drops a partial upload's record; the glue removes its bytes (on `.stored` the partial file
    /// has already become content, so removing a missing file is nothing).
    private func forgetPartial(_ partial: PartialUpload, into out: inout [ServerAction]) {
        do {
            try files.removePartial(key: partial.key)
        } catch {
            out.append(.log(.error, "file catalog write failed", ["error": "\(error)"]))
        }
        out.append(.discardFileBytes(.partial(partial.key)))
    }

    /// Records the file (with its room event), acks on the upload stream, announces it.
    private func storeUpload(_ upload: ActiveUpload, on key: FileStreamKey, now: Int64, into out: inout [ServerAction]) {
        let partial = upload.partial
        let sender = clients[key.client].flatMap { $0.phase == .active ? $0.nick : nil } ?? upload.senderNick
        var event: StoredEvent?
        if let room = partial.room {
            // The event gets its seq in the log, after the record is stored.
            event = StoredEvent(room: room, seq: 0, ts: now, kind: .file,
                                sender: sender, text: partial.name, id: partial.id, account: upload.senderAccount,
                                file: makeHexKey(), size: partial.size, sha256: partial.sha256)
        }
        let file = StoredFile(
            id: event?.file ?? makeHexKey(), sha256: partial.sha256, size: partial.size, name: partial.name,
            room: partial.room, seq: nil, ts: now, sender: sender, senderAccount: upload.senderAccount,
            uploaderPeer: partial.peer, uploadID: partial.id, owner: partial.owner, address: partial.address, recipient: upload.recipient?.nick,
            recipientAccount: upload.recipient?.account, recipientPeer: upload.recipient?.peer, recipientDevice: upload.recipient?.device)
        // The record (and eviction) in the store first; then its room event.
        nextSharedToken += 1
        pendingFiles[nextSharedToken] = .store(key, upload, file, event)
        out.append(.storeFileRecord(nextSharedToken, file, maxBytes: configuration.filesMaxBytes))
    }

    /// The record is stored: the upload's `ack`, and the room event or the recipient's notice.
    func announceUpload(_ file: StoredFile, event: StoredEvent?, upload: ActiveUpload, on key: FileStreamKey, now: Int64,
                        into out: inout [ServerAction]) {
        let partial = upload.partial
        let sender = file.sender
        if let event {
            record([RoomEventDraft(event: event, origin: clients[key.client], purpose: .upload(key, file))], now: now, into: &out)
            return
        }
        out.append(.endFileStream(key, SharedPayload(line: .uploadAck(id: partial.id, file: file.id, seq: file.seq, ts: now)),
                                  stopSending: false))
        if let recipient = upload.recipient {
            let notice = ChatMessage.fileAnnouncement(file: file.id, name: file.name, size: file.size, sha256: file.sha256, sender: sender,
                                                      id: partial.id, room: nil, to: recipient.nick, seq: nil, ts: now,
                                                      account: upload.senderAccount)
            announcePrivateFile(notice, to: recipient, into: &out)
        }
    }

    /// Interrupted uploads not resumed within `partialUploadMilliseconds`: their bytes go. The
    /// glue calls this now and then (and at start, for those a previous run left).
    public func expireInterruptedUploads(now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        let receiving = Set(activeUploads.values.map(\.partial.key))
        do {
            for partial in try files.partials(updatedBefore: now - configuration.partialUploadMilliseconds)
            where !receiving.contains(partial.key) {
                try files.removePartial(key: partial.key)
                out.append(.discardFileBytes(.partial(partial.key)))
            }
        } catch {
            out.append(.log(.error, "file catalog write failed", ["error": "\(error)"]))
        }
        return out
    }
}

extension FileCatalog {
    /// At start, before any upload: which of the files found in the file folder no record needs.
    /// Stored content no file record names (a crash between the rename into `content/` and the
    /// record's commit leaves one; so does an eviction whose removal never ran) and partial files
    /// no partial upload names go; everything a record names stays. When the catalog cannot be
    /// read nothing is removed.
    public func strayFileBytes(content: [String], partials: [String]) -> [ServerAction] {
        var stray: [FileBytes] = []
        do {
            let held = Set(try self.partials(updatedBefore: .max).map(\.key))
            for sha256 in content where try !hasContent(sha256) { stray.append(.content(sha256)) }
            for key in partials where !held.contains(key) { stray.append(.partial(key)) }
        } catch {
            return [.log(.error, "file catalog read failed: stray files kept", ["error": "\(error)"])]
        }
        guard !stray.isEmpty else { return [] }
        let contentCount = stray.count { if case .content = $0 { true } else { false } }
        return stray.map { .discardFileBytes($0) }
            + [.log(.info, "stray files removed", ["content": "\(contentCount)", "partial": "\(stray.count - contentCount)"])]
    }
}
