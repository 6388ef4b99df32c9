import CLIOptions
import ChatClientKit
import Glibc
import QuicEngine

/// `--file-size` and `--file-rate`: uploads of random bytes to the clients' rooms during the run,
/// the clients taking turns; their throughput goes in the report.
extension LoadGenerator {
    func startUpload() {
        do {
            for _ in 0..<options.clients {
                let slot = uploaderCursor % options.clients
                uploaderCursor += 1
                guard let client = current[slot], client.state == .joined, let source = uploadSource else { continue }
                try client.files.upload(source, room: client.room, to: nil, sha256: uploadDigest)
                stats.filesStarted += 1
                if stats.firstFileStart == nil { stats.firstFileStart = .now() }
                return
            }
        } catch {
            stats.filesFailed += 1
            Console.error("chat-bot load: cannot upload: \(error)")
        }
    }

    func fileTransferred(_ event: FileTransfers.Event) {
        switch event {
        case .progress, .resumed, .restored, .abandoned, .hashed:
            break
        case .finished(let transfer, _):
            stats.filesCompleted += 1
            stats.fileBytes += transfer.size
            stats.lastFileEnd = .now()
        case .cancelled:
            stats.filesFailed += 1
        case .failed(_, let reason):
            stats.filesFailed += 1
            Console.error("chat-bot load: an upload failed: \(reason)")
        }
    }

    /// The random source file goes when the run ends.
    func removeUploadSource() {
        if let uploadSource { unlink(uploadSource) }
        uploadSource = nil
    }
}
