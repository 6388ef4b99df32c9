import ChatProtocol

/// With a shared store: file records read before a file stream's header is checked, and stored
/// (with the eviction of others) before an upload is acknowledged (``SharedFileCatalog``).
extension ChatServerState {
    /// Reads what the header needs (the upload's earlier record, what its owner, its address and
    /// everyone hold; the file to download) and handles it once they are here.
    func loadFiles(for message: ChatMessage, on key: FileStreamKey, session: ClientSession, remote: FileRecipient? = nil,
                   into out: inout [ServerAction]) {
        var query = FileQuery()
        if message.messageType == .download {
            guard let file = message.file, !file.isEmpty else { return handleDownload(message, on: key, from: session, into: &out) }
            query.files = [file]
        } else {
            if let id = message.id { query.uploads = [(session.peer, id)] }
            query.scopes = [.owner(FileOwner.key(account: session.account, peer: session.peer)), .everyone]
            if !session.address.isEmpty { query.scopes.append(.address(session.address)) }
        }
        nextSharedToken += 1
        pendingFiles[nextSharedToken] = .header(key, message, remote: remote)
        guard message.messageType == .upload else { return out.append(.loadFiles(nextSharedToken, query)) }
        if uploadReadOut {
            waitingUploadReads.append((nextSharedToken, query))
        } else {
            uploadReadOut = true
            out.append(.loadFiles(nextSharedToken, query))
        }
    }

    /// The answer to ``ServerAction/loadFiles(_:_:)``; nil when the store could not be read.
    public func filesLoaded(_ token: UInt64, _ loaded: LoadedFiles?, now: Int64) -> [ServerAction] {
        let catalog = files
        guard case .header(let key, let message, let remote)? = pendingFiles.removeValue(forKey: token) else {
            return [.log(.warning, "unknown file read", ["token": String(token)])]
        }
        var out: [ServerAction] = []
        if let session = clients[key.client] {
            if let loaded {
                catalog.remember(loaded)
                if message.messageType == .download {
                    handleDownload(message, on: key, from: session, into: &out)
                } else {
                    handleUploadHeader(message, on: key, from: session, remote: remote, now: now, into: &out)
                }
                catalog.clear()
                writeSharedPartials(into: &out)
            } else {
                refuseFileStream(key, .unavailable, "the file store cannot be read now", id: message.id, into: &out)
            }
        }
        // The next upload header's read goes after what this one wrote.
        if message.messageType == .upload { sendNextUploadRead(into: &out) }
        return out
    }

    private func sendNextUploadRead(into out: inout [ServerAction]) {
        guard !waitingUploadReads.isEmpty else {
            uploadReadOut = false
            return
        }
        let next = waitingUploadReads.removeFirst()
        out.append(.loadFiles(next.token, next.query))
    }

    /// Interrupted-upload records the last step changed, for the shared store.
    func writeSharedPartials(into out: inout [ServerAction]) {
        let writes = files.takeWrites()
        if !writes.isEmpty { out.append(.writePartialUploads(writes, maxBytes: configuration.filesMaxBytes)) }
    }

    /// Content the shared store's eviction left unused (making room for an upload): its bytes go
    /// from the shared folder, unless an upload being received here has found them stored.
    public func contentEvicted(_ unused: [String]) -> [ServerAction] {
        var out: [ServerAction] = []
        discardEvicted(unused, into: &out)
        return out
    }

    private func discardEvicted(_ unused: [String], into out: inout [ServerAction]) {
        for sha256 in unused where !activeUploads.values.contains(where: { $0.partial.sha256 == sha256 }) {
            out.append(.discardFileBytes(.content(sha256)))
        }
    }

    /// The outcome of ``ServerAction/storeFileRecord(_:_:maxBytes:)``.
    public func fileRecordStored(_ token: UInt64, _ outcome: FileRecordOutcome, now: Int64) -> [ServerAction] {
        guard case .store(let key, let upload, let file, let event)? = pendingFiles.removeValue(forKey: token) else {
            return [.log(.warning, "unknown file record", ["token": String(token)])]
        }
        var out: [ServerAction] = []
        switch outcome {
        case .failed(let why):
            out.append(.log(.error, "file record not stored", ["error": why]))
            out.append(.endFileStream(key, fileError(.unavailable, "the server cannot store this file now", id: upload.partial.id),
                                      stopSending: false))
        case .stored(let stored, let unused):
            discardEvicted(unused, into: &out)
            if stored.id != file.id {
                // The same upload was stored before (a resend after a lost answer): its record stands.
                out.append(.endFileStream(key, SharedPayload(line: .uploadAck(id: stored.uploadID, file: stored.id, seq: stored.seq,
                                                                             ts: stored.ts)), stopSending: false))
                return out
            }
            announceUpload(file, event: event, upload: upload, on: key, now: now, into: &out)
        }
        return out
    }
}
