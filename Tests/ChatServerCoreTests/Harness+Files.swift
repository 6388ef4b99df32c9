import ChatProtocol
import ChatServerCore

/// File streams driven the way the glue drives them (PROTOCOL.md section 9).
extension Harness {
    static let digest = String(repeating: "5a", count: 32)

    /// The stream id of a client's `n`th file stream (8, 12, …).
    static func fileStream(_ client: ClientID, _ n: Int64 = 0) -> FileStreamKey {
        FileStreamKey(client: client, stream: 8 + 4 * n)
    }

    @discardableResult
    func header(_ message: ChatMessage, on key: FileStreamKey) -> Outbox {
        Outbox(settle(state.fileStreamHeader(.message(message), on: key, now: now)))
    }

    @discardableResult
    func upload(_ id: String, room: String? = "lobby", to nick: String? = nil, name: String = "notes.txt", size: Int64 = 10,
                sha256: String = Harness.digest, offset: Int64? = nil, on key: FileStreamKey) -> Outbox {
        header(.upload(id: id, room: nick == nil ? room : nil, to: nick, name: name, size: size, sha256: sha256, offset: offset), on: key)
    }

    @discardableResult
    func uploadEnded(_ key: FileStreamKey, _ outcome: UploadOutcome) -> Outbox {
        Outbox(settle(state.uploadEnded(key, outcome, now: now)))
    }

    /// Interrupted uploads not resumed in time go, as the glue has them go: its every-second tick
    /// (which keeps an upload still arriving young in the store), then, on the local store, the
    /// store's expiry, settled.
    func expireInterruptedUploads() -> Outbox {
        guard let (_, adapter) = localStore else { return Outbox(state.expireInterruptedUploads(now: now)) }
        let ticked = settle(state.tick(now: now))
        adapter.expirePartials(olderThan: state.configuration.partialUploadMilliseconds, now: now)
        return Outbox(ticked + settle([]))
    }

    /// Uploads and stores a file; returns the ack.
    @discardableResult
    func shared(_ id: String, room: String? = "lobby", to nick: String? = nil, size: Int64 = 10, sha256: String = Harness.digest,
                on key: FileStreamKey) -> ChatMessage? {
        upload(id, room: room, to: nick, size: size, sha256: sha256, on: key)
        return uploadEnded(key, .stored).fileStreamEnds.first?.message
    }
}

extension Outbox {
    /// What was written on file streams before FIN.
    var fileStreamEnds: [(key: FileStreamKey, message: ChatMessage, stopSending: Bool)] {
        actions.compactMap { action in
            if case .endFileStream(let key, let payload, let stop) = action { (key, Outbox.decode(payload), stop) } else { nil }
        }
    }

    /// The error codes written on file streams.
    var fileErrorCodes: [String] { fileStreamEnds.filter { $0.message.type == "error" }.compactMap(\.message.code) }

    var uploadJobs: [(key: FileStreamKey, job: UploadJob)] {
        actions.compactMap { action in
            if case .receiveUpload(let key, let job) = action { (key, job) } else { nil }
        }
    }

    var downloads: [(key: FileStreamKey, header: ChatMessage, job: DownloadJob)] {
        actions.compactMap { action in
            if case .sendDownload(let key, let job) = action { (key, Outbox.decode(job.header), job) } else { nil }
        }
    }

    var discarded: [FileBytes] {
        actions.compactMap { action in
            if case .discardFileBytes(let bytes) = action { bytes } else { nil }
        }
    }

    var abandoned: [FileStreamKey] {
        actions.compactMap { action in
            if case .abandonUpload(let key) = action { key } else { nil }
        }
    }
}
