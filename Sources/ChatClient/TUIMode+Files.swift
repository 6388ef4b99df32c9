import ChatClientKit
import ChatTUI
import QuicEngine

/// Files in the full-screen client (PROTOCOL.md section 9): `/send`, `/get`, `/cancel`; the
/// transfer in progress in the status bar (bytes, rate, time left); its end as a line.
extension TUIMode {
    func send(_ path: String, to nick: String?) {
        let room = nick == nil ? currentChatRoom : nil
        // In a private conversation, /send PATH goes to the person it is with.
        let recipient = nick ?? (room == nil ? model.currentRoom?.queryNick : nil)
        do {
            let number = try session.files.upload(path, room: room ?? currentRoomName, to: recipient)
            note("[transfer \(number)] sending \(path)", in: currentRoomName)
            if let transfer = session.files.transfers[number] { model.transfer = Self.progress(of: transfer) }
        } catch {
            note("cannot send \(path): \(error)", in: currentRoomName)
        }
    }

    func get(_ number: Int, into folder: String?) {
        guard let shared = session.files.sharedFiles[number] else { return note("there is no shared file \(number)", in: currentRoomName) }
        let target = folder ?? ClientPaths.downloadFolder()
        ClientPaths.makeDirectory(target)
        do {
            let transfer = try session.files.download(shared, into: target)
            note("[transfer \(transfer)] getting \(shared.text)", in: currentRoomName)
        } catch {
            note("cannot get file \(number) into \(target): \(error)", in: currentRoomName)
        }
    }

    func transfers() {
        note(transferHistory.lines(running: Array(session.files.transfers.values), now: .now()) { $0 }.joined(separator: "\n"), in: currentRoomName)
    }

    func transferred(_ event: FileTransfers.Event) {
        transferHistory.record(event)
        switch event {
        case .progress(let transfer), .resumed(let transfer), .hashed(let transfer):
            model.transfer = Self.progress(of: transfer)
        case .finished(let transfer, _):
            model.transfer = nextShownTransfer()
            switch transfer.direction {
            case .upload: note("[transfer \(transfer.number)] sent \(transfer.name) (\(FileTransfer.bytes(transfer.size)))", in: currentRoomName)
            case .download(_, let destination): note("[transfer \(transfer.number)] saved \(destination), SHA-256 checked", in: currentRoomName)
            }
        case .failed(let transfer, let reason):
            model.transfer = nextShownTransfer()
            model.append(ChatLine(timestamp: unixMilliseconds(), nick: "", text: "[transfer \(transfer.number)] \(transfer.name) failed: "
                                    + FileTransfer.humanizingByteCounts(reason),
                                  kind: .error), to: currentRoomName)
        case .cancelled(let transfer):
            model.transfer = nextShownTransfer()
            note("[transfer \(transfer.number)] \(transfer.name) cancelled", in: currentRoomName)
        case .restored(let transfer):
            note("[transfer \(transfer.number)] \(transfer.isUpload ? "sending" : "getting") \(transfer.name) again: left unfinished by the last run",
                 in: currentRoomName)
        case .abandoned(let transfer, let reason):
            note("\(transfer.name), left unfinished by the last run, cannot go on: \(reason)", in: currentRoomName)
        }
    }

    /// A transfer ended: the bar shows another one still running, if any.
    func nextShownTransfer() -> TransferProgress? {
        session.files.transfers.values.min { $0.number < $1.number }.map { Self.progress(of: $0) }
    }

    /// What the status bar draws of a transfer: its bar, sizes, rate and time left (hashing while
    /// an upload has no digest yet).
    static func progress(of transfer: FileTransfer, now: MonotonicTime = .now()) -> TransferProgress {
        TransferProgress(isUpload: transfer.isUpload, name: transfer.name, fraction: transfer.sha256.isEmpty ? nil : transfer.fraction,
                         amounts: transfer.amountsText, rate: transfer.rateText(now: now), timeLeft: transfer.timeLeftText(now: now))
    }
}
