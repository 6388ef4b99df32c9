import CLIOptions
import ChatClientKit
import ChatProtocol
import ChatTUI
import QuicEngine

/// What line mode prints: each event one timestamped line (or one JSON object with --json), our
/// own messages once acknowledged, transfers on standard error.
extension LineMode {
    func received(_ message: ChatMessage) {
        lastProgress = .now()
        if options.json { Console.line(String(decoding: message.withoutPeer.encodedDatagram(), as: UTF8.self)) }
        // A server that keeps away reasons (version 1.2) answers for us.
        let reason = session.features.contains(ServerFeature.alwaysOn) ? nil : awayReason
        if let reply = awayReplies.reply(to: message, reason: reason, ownNick: session.nick, now: unixMilliseconds()), let to = reply.to {
            sendPrivate(reply.text, to: to)
        }
        if message.messageType == .welcome { formatter.numbers = session.features.contains(ServerFeature.edits) }
        if message.messageType == .ack, let id = message.id, let own = sentChanges.removeValue(forKey: id) ?? sent[id] {
            acknowledged(message, of: own)
        }
        if message.messageType == .error, let id = message.id { sentChanges[id] = nil }
        remember(message)
        if message.messageType == .welcome { runLinesAwaitingWelcome() }
        if !options.json, heldBack(message) { return }
        // A message stored twice across a server's crash is shown once (--json prints what came).
        if !options.json, repeatedMessages.isRepeat(message) { return }
        if !options.json, ignoring.list.hides(message) { return }
        if smartFilter.hides(message, ownNick: session.nick, now: unixMilliseconds()), !options.json { return }
        var isExplained = false
        if message.messageType == .ack || message.messageType == .error, let id = message.id, let own = sent.removeValue(forKey: id) {
            if message.messageType == .ack {
                let time = message.ts ?? unixMilliseconds()
                if !options.json { show(formatter.ownLines(for: own, nick: session.nick, at: time, seq: message.seq), at: time) }
            } else {
                status = 1
                complain("not sent (\(message.code ?? "error"): \(message.text)): \(own.text)")
                isExplained = true
            }
        }
        if message.messageType == .file, message.file != nil {
            let number = session.files.number(forShared: message)
            if !options.json { show(formatter.fileLines(for: message, number: number, now: unixMilliseconds()), at: message.ts ?? unixMilliseconds()) }
            isExplained = true
        }
        // Another device of the account wrote it (version 1.2, section 13): printed as our own.
        if !options.json, !isExplained, message.messageType == .dm, sameNick(message.sender, session.nick), let to = message.to,
           !sameNick(to, session.nick) {
            let time = message.ts ?? unixMilliseconds()
            show(formatter.ownLines(for: message, nick: session.nick, at: time, seq: message.seq), at: time)
            isExplained = true
        }
        if !options.json && !isExplained { show(formatter.lines(for: message, now: unixMilliseconds()), at: message.ts ?? unixMilliseconds()) }
        if inputEnded { settle() }
    }

    /// Transfers report on standard error: progress, the end, a failure (then status 1); with
    /// `--json`, as objects on standard output (``TransferEventJSON``).
    func transferred(_ event: FileTransfers.Event) {
        lastProgress = .now()
        transferHistory.record(event)
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
            return "[transfer \(transfer.number)] \(formatter.single(transfer.name)) failed: \(formatter.single(FileTransfer.humanizingByteCounts(reason)))"
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

    /// The `welcome` line waits for the replay of the hello's room, which is older (issue 24,
    /// defect 15): it is printed before the first live event. A nick other than the one asked
    /// for is said at once (defect 14). True for a message held back.
    private func heldBack(_ message: ChatMessage) -> Bool {
        if message.messageType == .welcome {
            if !sameNick(message.sender, session.helloNick) {
                complain("the nick \(session.helloNick) is taken (someone's account, or someone connected with it): you are \(formatter.single(message.sender)); "
                         + "/login \(session.helloNick) if the account is yours, /nick for another")
            }
            heldWelcome = message
            return true
        }
        if message.replay != true, let welcome = heldWelcome {
            heldWelcome = nil
            show(formatter.lines(for: welcome, now: unixMilliseconds()), at: welcome.ts ?? unixMilliseconds())
        }
        return false
    }

    /// The answers to `/who` that waited for their room's member list.
    func membersKnown(in room: String) {
        guard pendingWho.contains(room), session.members.hasRoster(of: room) else { return }
        pendingWho.remove(room)
        showMembers(of: room)
    }

    /// Prints the lines of an event of `time`, after a day line when its local day is not the
    /// day of the lines printed before (issue 24, dates): replayed history of other days, a run
    /// past midnight.
    func show(_ lines: [String], at time: Int64) {
        let day = TimestampFormat.day(of: time, utcOffsetSeconds: formatter.utcOffsetSeconds)
        if !lines.isEmpty, day != shownDay {
            shownDay = day
            emit(formatter.dayLine(at: time))
        }
        emit(lines)
    }

    private func emit(_ lines: [String]) {
        for line in lines { Console.line(line) }
        printed += lines
        if printed.count > Self.printedLimit * 2 { printed.removeFirst(printed.count - Self.printedLimit) }
    }
}
