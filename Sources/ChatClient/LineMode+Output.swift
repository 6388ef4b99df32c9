import CLIOptions
import ChatClientKit
import ChatProtocol
import QuicEngine

/// What line mode prints: each event one timestamped line (or one JSON object with --json), our
/// own messages once acknowledged, transfers on standard error.
extension LineMode {
    func received(_ message: ChatMessage) {
        lastProgress = .now()
        if options.json { Console.line(String(decoding: message.encodedDatagram(), as: UTF8.self)) }
        var isExplained = false
        if message.messageType == .ack || message.messageType == .error, let id = message.id, let own = sent.removeValue(forKey: id) {
            if message.messageType == .ack {
                if !options.json { show(formatter.ownLines(for: own, nick: session.nick, at: message.ts ?? unixMilliseconds())) }
            } else {
                status = 1
                complain("not sent (\(message.code ?? "error"): \(message.text)): \(own.text)")
                isExplained = true
            }
        }
        if message.messageType == .file, message.file != nil {
            let number = session.files.number(forShared: message)
            if !options.json { show(formatter.fileLines(for: message, number: number, now: unixMilliseconds())) }
            isExplained = true
        }
        if !options.json && !isExplained { show(formatter.lines(for: message, now: unixMilliseconds())) }
        if inputEnded { settle() }
    }

    /// Transfers report on standard error: progress, the end, a failure (then status 1); with
    /// `--json`, as objects on standard output (``TransferEventJSON``).
    func transferred(_ event: FileTransfers.Event) {
        lastProgress = .now()
        if case .failed = event { status = 1 }
        if options.json {
            Console.line(TransferEventJSON.line(event, now: .now()))
        } else {
            complain(transferText(event))
        }
        if inputEnded { settle() }
    }

    func transferText(_ event: FileTransfers.Event) -> String {
        switch event {
        case .progress(let transfer):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) \(transfer.progressText(now: .now()))"
        case .resumed(let transfer):
            return "[transfer \(transfer.number)] resuming \(formatter.single(transfer.name)) from \(FileTransfer.bytes(transfer.done))"
        case .finished(let transfer, _):
            switch transfer.direction {
            case .upload: return "[transfer \(transfer.number)] sent \(formatter.single(transfer.name)) (\(FileTransfer.bytes(transfer.size)))"
            case .download(_, let destination): return "[transfer \(transfer.number)] saved \(formatter.single(destination)) (SHA-256 checked)"
            }
        case .failed(let transfer, let reason):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) failed: \(formatter.single(reason))"
        case .cancelled(let transfer):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) cancelled"
        case .hashed(let transfer):
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) hashed (SHA-256 \(transfer.sha256)), sending"
        case .restored(let transfer):
            return "[transfer \(transfer.number)] \(transfer.isUpload ? "sending" : "getting") \(formatter.single(transfer.name)) again: "
                + "left unfinished by the last run"
        case .abandoned(let transfer, let reason):
            return "\(formatter.single(transfer.name)), left unfinished by the last run, cannot go on: \(formatter.single(reason))"
        }
    }

    func show(_ lines: [String]) {
        for line in lines { Console.line(line) }
    }
}
