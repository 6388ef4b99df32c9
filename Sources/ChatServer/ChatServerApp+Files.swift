import ChatProtocol
import ChatServerCore
import QuicEngine

/// File streams (PROTOCOL.md section 9) between the engine, the core and the file worker: the
/// engine sends them as bulk streams (after chat and presence, never ahead of a datagram); the
/// header goes to the core; an upload's body to the worker, whose written bytes return the
/// stream's credit (the back-pressure); a download's bytes from the worker, a chunk at a time as
/// the stream's send buffer drains.
extension ChatServerApp {
    /// Client-opened bidirectional streams after 0 and 4.
    static func isFileStream(_ stream: QuicStreamID) -> Bool { stream >= 8 && stream & 0x3 == 0 }

    /// A new file stream: a bulk stream for a `qchat/1` client; a `chat` ALPN peer has no files.
    func fileStreamOpened(_ stream: QuicStreamID, on connection: QuicConnection) -> Bool {
        guard Self.isFileStream(stream), connection.negotiatedALPN == "qchat/1", let link = links[connection.id] else { return false }
        connection.markBulk(stream)
        link.fileStreams[stream] = FileStreamLink(now: unixMilliseconds())
        return true
    }

    func receiveFileData(_ bytes: [UInt8], fin: Bool, on stream: QuicStreamID, link: ClientLink, now: Int64) {
        guard let file = link.fileStreams[stream] else { return }
        let connection = link.connection
        let key = FileStreamKey(client: connection.id, stream: stream)
        if !bytes.isEmpty || fin { file.lastProgress = now }
        file.rateWindowBytes += Int64(bytes.count)
        var body = bytes[...]
        if case .header = file.phase {
            let outcome = file.reader.feed(bytes, fin: fin)
            guard case .header(let event, let bodyStart) = outcome else {
                // Held by the reader, bounded by the stream message limit.
                connection.releaseReceiveCredit(stream, count: bytes.count)
                return
            }
            connection.releaseReceiveCredit(stream, count: bodyStart)
            body = bytes[bodyStart...]
            file.phase = .deciding(held: [], finished: false)
            perform(state.fileStreamHeader(event, on: key, now: now))
        }
        switch file.phase {
        case .receiving:
            file.unwritten.append(contentsOf: body)
            if !file.listedForHandOver && !fin {
                file.listedForHandOver = true
                uploadsWithUnwrittenBytes.append(key)
            }
            if file.unwritten.count >= FileStreamLink.handOverSize || fin { handOverUnwritten(file, key) }
            if fin { fileWorker.finishUpload(key) }
        case .deciding(let held, let finished):
            file.phase = .deciding(held: held + body, finished: finished || fin)
        case .header, .opening, .sending, .done:
            // Nothing reads it: its credit goes back at once.
            connection.releaseReceiveCredit(stream, count: body.count)
        }
    }

    /// RESET_STREAM from the client: an upload in progress is interrupted (kept for a resume,
    /// with every byte that arrived). A stream the server has written nothing on yet is reset
    /// back, so it closes and its place among the client's four file streams comes back (left
    /// open, it stayed until the connection ended).
    func fileStreamReset(_ stream: QuicStreamID, link: ClientLink) {
        guard let file = link.fileStreams[stream] else { return }
        switch file.phase {
        case .receiving:
            let key = FileStreamKey(client: link.connection.id, stream: stream)
            handOverUnwritten(file, key)
            fileWorker.interruptUpload(key)
            link.connection.resetStream(stream, errorCode: 0x1)
        case .deciding(let held, _):
            link.connection.releaseReceiveCredit(stream, count: held.count)
            link.connection.resetStream(stream, errorCode: 0x1)
        case .header:
            link.connection.resetStream(stream, errorCode: 0x1)
        case .opening, .sending, .done:
            // Its answer is written (or being written): the client reads it to its end.
            break
        }
        file.phase = .done
    }

    func fileStreamClosed(_ stream: QuicStreamID, link: ClientLink) {
        guard let file = link.fileStreams.removeValue(forKey: stream) else { return }
        let key = FileStreamKey(client: link.connection.id, stream: stream)
        switch file.phase {
        case .receiving:
            handOverUnwritten(file, key)
            fileWorker.interruptUpload(key)
        case .opening, .sending: fileWorker.finishDownload(key)
        case .header, .deciding, .done: break
        }
    }

    /// The connection is gone: its uploads are interrupted, its downloads end.
    func fileStreamsEnded(_ link: ClientLink) {
        for stream in Array(link.fileStreams.keys) { fileStreamClosed(stream, link: link) }
    }

    func performFileAction(_ action: ServerAction) {
        switch action {
        case .endFileStream(let key, let payload, let stopSending):
            guard let (link, file) = fileStream(key) else { return }
            if case .deciding(let held, _) = file.phase { link.connection.releaseReceiveCredit(key.stream, count: held.count) }
            file.phase = .done
            file.unwritten = []
            _ = try? link.connection.write(payload.bytes, to: key.stream, fin: true)
            if stopSending { link.connection.stopSending(key.stream, errorCode: 0x1) }
        case .receiveUpload(let key, let job):
            guard let (_, file) = fileStream(key) else {
                // The stream is already gone: the upload is interrupted before it began.
                metrics.noteUploadEnded(.interrupted(held: job.offset))
                return perform(state.uploadEnded(key, .interrupted(held: job.offset), now: unixMilliseconds()))
            }
            let waiting: (held: [UInt8], finished: Bool)? = if case .deciding(let held, let finished) = file.phase { (held, finished) } else { nil }
            file.phase = .receiving
            fileWorker.startUpload(key, job)
            // What arrived while the core decided (a node of several reads records first).
            if let waiting {
                if !waiting.held.isEmpty {
                    file.withWorker += waiting.held.count
                    fileWorker.write(waiting.held, to: key)
                }
                if waiting.finished { fileWorker.finishUpload(key) }
            }
        case .abandonUpload(let key):
            // What the old stream received is written before its file closes: the resume on
            // the new stream then starts from every byte that arrived.
            if let (_, file) = fileStream(key), case .receiving = file.phase { handOverUnwritten(file, key) }
            fileWorker.abandonUpload(key)
            guard let (link, file) = fileStream(key) else { return }
            file.phase = .done
            link.connection.stopSending(key.stream, errorCode: 0x1)
            link.connection.resetStream(key.stream, errorCode: 0x1)
        case .sendDownload(let key, let job):
            guard let (_, file) = fileStream(key) else { return }
            file.phase = .opening(job)
            fileWorker.openDownload(job.sha256, size: job.size, for: key)
        case .discardFileBytes(let bytes):
            fileWorker.discard(bytes)
        default:
            break
        }
    }

    /// What the file worker reports, on the loop thread.
    func handleFileReport(_ report: FileWorker.Report) {
        switch report {
        case .consumed(let key, let count):
            metrics.fileBytesReceived += count
            // A slow disk is no stalled client.
            if let (link, file) = fileStream(key) {
                file.lastProgress = unixMilliseconds()
                file.withWorker = max(0, file.withWorker - count)
                link.connection.releaseReceiveCredit(key.stream, count: count)
            }
        case .uploadEnded(let key, let outcome):
            metrics.noteUploadEnded(outcome)
            perform(state.uploadEnded(key, outcome, now: unixMilliseconds()))
        case .opened(let key, let failure):
            guard let (link, file) = fileStream(key), case .opening(let job) = file.phase else { return fileWorker.finishDownload(key) }
            if let failure {
                file.phase = .done
                fileWorker.finishDownload(key)
                return perform(state.downloadFailed(key, reason: failure))
            }
            file.phase = .sending(sha256: job.sha256, next: job.offset, end: job.size)
            metrics.downloadsStarted += 1
            _ = try? link.connection.write(job.header.bytes, to: key.stream, fin: job.offset == job.size)
            if job.offset == job.size {
                file.phase = .done
                fileWorker.finishDownload(key)
            } else {
                pumpDownload(key)
            }
        case .read(let key, let bytes, let failure):
            guard let (link, file) = fileStream(key), case .sending(let sha256, let next, let end) = file.phase else {
                return fileWorker.finishDownload(key)
            }
            file.reading = false
            guard failure == nil, !bytes.isEmpty else {
                logger.log(.error, "download failed", ["client": "\(key.client)", "reason": failure ?? "the stored file is short"])
                file.phase = .done
                fileWorker.finishDownload(key)
                return link.connection.resetStream(key.stream, errorCode: 0x1)
            }
            file.phase = .sending(sha256: sha256, next: next + Int64(bytes.count), end: end)
            file.pending = bytes
            pumpDownload(key)
        }
    }

    /// Moves a download on: the pending chunk into the stream's send buffer, then the next read.
    func pumpDownload(_ key: FileStreamKey) {
        guard let (link, file) = fileStream(key), case .sending(let sha256, let next, let end) = file.phase else { return }
        if !file.pending.isEmpty {
            let last = next == end
            guard let accepted = try? link.connection.write(file.pending, to: key.stream, fin: last) else { return }
            metrics.fileBytesSent += accepted
            if accepted > 0 { file.lastProgress = unixMilliseconds() }
            file.rateWindowBytes += Int64(accepted)
            file.pending.removeFirst(accepted)
            guard file.pending.isEmpty else { return }  // streamWritable brings the rest
            if last {
                file.phase = .done
                return fileWorker.finishDownload(key)
            }
        }
        guard !file.reading else { return }
        file.reading = true
        fileWorker.read(sha256, at: next, count: Int(min(Int64(FileWorker.chunkSize), end - next)), for: key)
    }

    /// File streams without progress for `--file-stall-timeout`, or moving fewer than
    /// `--file-min-rate` bytes a second over it, are given up, both ways (RESET_STREAM and
    /// STOP_SENDING 0x1), so a client that stops sending (or reading), or trickles, holds no file
    /// open and no upload place for long (time the stream waits for the server's disk or store
    /// does not count): an upload is interrupted (every byte that arrived is written first and
    /// kept for a resume), a download ends (the client may ask again from an offset). Checked every
    /// second.
    func giveUpStalledFileStreams(now: Int64) {
        let limit = state.configuration.fileStallMilliseconds
        let minimumRate = state.configuration.fileMinimumRate
        for link in links.values where !link.fileStreams.isEmpty {
            for (stream, file) in link.fileStreams {
                let stalled = now - file.lastProgress >= limit
                // A slow disk or store is no stalled client: its time starts when the server is done.
                if file.waitsForServer {
                    if stalled { file.lastProgress = now }
                    file.restartRateWindow(now: now)
                    continue
                }
                guard stalled || file.isTooSlow(now: now, window: limit, minimumRate: minimumRate) else { continue }
                let key = FileStreamKey(client: link.connection.id, stream: stream)
                switch file.phase {
                case .done: continue
                case .header: break
                case .deciding(let held, _): link.connection.releaseReceiveCredit(stream, count: held.count)
                case .receiving:
                    handOverUnwritten(file, key)
                    fileWorker.interruptUpload(key)
                case .opening, .sending: fileWorker.finishDownload(key)
                }
                file.phase = .done
                file.unwritten = []
                link.connection.stopSending(stream, errorCode: 0x1)
                link.connection.resetStream(stream, errorCode: 0x1)
                metrics.fileStreamsStalled += 1
                logger.log(.info, stalled ? "file stream stalled" : "file stream too slow",
                           ["client": "\(link.connection.id)", "stream": "\(stream)"])
            }
        }
    }

    /// An upload's body bytes received so far go to the worker as one job.
    func handOverUnwritten(_ file: FileStreamLink, _ key: FileStreamKey) {
        guard !file.unwritten.isEmpty else { return }
        file.withWorker += file.unwritten.count
        fileWorker.write(file.takeUnwritten(), to: key)
    }

    /// At the end of a loop round: what uploads received in it goes to the worker, so the bytes
    /// that wait for a full job never hold the stream's credit longer than the round.
    func handOverUnwrittenUploads() {
        guard !uploadsWithUnwrittenBytes.isEmpty else { return }
        for key in uploadsWithUnwrittenBytes {
            guard let (_, file) = fileStream(key) else { continue }
            file.listedForHandOver = false
            if case .receiving = file.phase { handOverUnwritten(file, key) } else { file.unwritten = [] }
        }
        uploadsWithUnwrittenBytes.removeAll(keepingCapacity: true)
    }

    private func fileStream(_ key: FileStreamKey) -> (ClientLink, FileStreamLink)? {
        guard let link = links[key.client], let file = link.fileStreams[key.stream] else { return nil }
        return (link, file)
    }
}
