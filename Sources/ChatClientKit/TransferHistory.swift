import QuicEngine

/// `/transfers` (issue 24, habits): the transfers running, with their progress, then the last
/// ones that ended in this run and how, newest last. Fed the events of ``FileTransfers``.
public struct TransferHistory: Sendable {
    /// Ended transfers kept for the listing.
    public static let endedLimit = 20

    /// Ended transfers and what became of them (`sent`, `saved PATH`, `failed: …`, `cancelled`).
    public private(set) var ended: [(transfer: FileTransfer, outcome: String)] = []

    public init() {}

    public mutating func record(_ event: FileTransfers.Event) {
        let outcome: (FileTransfer, String)?
        switch event {
        case .finished(let transfer, _):
            if case .download(_, let destination) = transfer.direction {
                outcome = (transfer, "saved \(destination)")
            } else {
                outcome = (transfer, "sent")
            }
        case .failed(let transfer, let reason): outcome = (transfer, "failed: " + FileTransfer.humanizingByteCounts(reason))
        case .cancelled(let transfer): outcome = (transfer, "cancelled")
        case .abandoned(let transfer, let reason): outcome = (transfer, "left by the last run: \(reason)")
        case .progress, .resumed, .hashed, .restored: outcome = nil
        }
        guard let outcome else { return }
        ended.append(outcome)
        if ended.count > Self.endedLimit { ended.removeFirst(ended.count - Self.endedLimit) }
    }

    /// The listing: a line saying how many, then a line each, running ones first by number;
    /// `neutralize` makes a name or path safe to print.
    public func lines(running: [FileTransfer], now: MonotonicTime, neutralize: (String) -> String) -> [String] {
        guard !running.isEmpty || !ended.isEmpty else { return ["no transfers in this run (/send PATH shares a file, /get N downloads one)"] }
        let head = "\(running.count) transfer\(running.count == 1 ? "" : "s") running" + (ended.isEmpty ? "" : ", \(ended.count) ended") + ":"
        let current = running.sorted { $0.number < $1.number }.map { transfer in
            describe(transfer, neutralize) + ": " + (transfer.isUpload && transfer.sha256.isEmpty ? "hashing" : transfer.progressText(now: now))
        }
        return [head] + current + ended.map { describe($0.transfer, neutralize) + ": " + neutralize($0.outcome) }
    }

    /// `transfer 3 ↑ report.pdf (4.0 MiB) to #lobby`, `transfer 4 ↓ photo.jpg (2.1 MiB)`.
    private func describe(_ transfer: FileTransfer, _ neutralize: (String) -> String) -> String {
        let place: String
        switch transfer.direction {
        case .upload(_, let room, let to): place = to.map { " to " + neutralize($0) } ?? room.map { " to #" + neutralize($0) } ?? ""
        case .download: place = ""
        }
        return "transfer \(transfer.number) \(transfer.isUpload ? "↑" : "↓") \(neutralize(transfer.name)) (\(FileTransfer.bytes(transfer.size)))\(place)"
    }
}
