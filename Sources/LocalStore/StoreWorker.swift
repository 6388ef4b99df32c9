import ChatServerCore
import Dispatch
import RuntimeCore

/// One thread that owns the room log's disk (``RoomLogDisk``): the event loop hands it work and
/// never waits for it. Each round takes everything queued since the last one: every commit of the
/// round becomes one transaction (group commit, at most ``batchLimit`` events each), then the
/// reads are answered. Outcomes go to `finished`, on the worker's thread: the glue passes them to
/// the loop's queue with a wake-up, as the Redis link's answers come.
public final class StoreWorker: @unchecked Sendable {
    // @unchecked: `disk` is used on `queue` only (one thread at a time); the rest is a LockedValue
    // (a pthread mutex ThreadSanitizer sees, not the standard library's Mutex) or immutable.

    public enum Job: Sendable {
        /// Write `batch`; `ticket` comes back with the outcome.
        case commit(ticket: UInt64, AppendBatch)
        case read(RoomEventRead)
        /// Read a room's settings (for a join's room state).
        case readSettings(token: UInt64, room: String)
        /// Read accounts (by name, any case) with their certificates.
        case loadAccounts(token: UInt64, names: [String])
        case writeAccount(token: UInt64, AccountWrite)
        /// File records for a stream header.
        case loadFiles(token: UInt64, FileQuery)
        /// A finished upload's record, room made for it under `maxBytes` first.
        case storeFileRecord(token: UInt64, StoredFile, maxBytes: Int64)
        /// Interrupted uploads' records, then room made under `maxBytes`.
        case writePartialUploads([PartialUploadWrite], maxBytes: Int64)
        /// Interrupted uploads not touched since `before` (ms) go.
        case expirePartials(before: Int64)
        /// A room idle beyond the adapter's bound (``RoomLogDisk/forget(room:)``), after the round's commits.
        case forget(room: String)
    }

    public enum Outcome: Sendable, Equatable {
        /// The commits with these tickets are on disk (nil), or failed with the reason.
        case committed(tickets: [UInt64], failure: String?)
        /// A read's events, oldest first; nil: the disk could not be read.
        case read(RoomEventRead, [StoredEvent]?)
        /// A room's settings; nil: they could not be read.
        case settings(token: UInt64, room: String, RoomSettings?)
        /// Each name's account (nil: none); nil: the store could not be read.
        case accountsLoaded(token: UInt64, [String: LoadedAccount?]?)
        case accountWritten(token: UInt64, AccountWriteOutcome, AccountWrite)
        case filesLoaded(token: UInt64, LoadedFiles?)
        case fileRecordStored(token: UInt64, FileRecordOutcome)
        /// Content no record uses any more, after an eviction made room.
        case contentEvicted([String])
        /// Interrupted uploads expired: their bytes go.
        case partialsExpired([String])
    }

    /// How long the disk took, for the server's `qchat_history_store_seconds` (told on the worker's thread).
    public enum Timing: Sendable {
        /// A round's commit (its transactions, a slow disk's delay included).
        case append(Duration)
        /// A read of room events.
        case read(Duration)
    }

    /// Events one transaction holds at most: a round with more commits several.
    public static let batchLimit = 1000

    private let disk: any RoomLogDisk
    /// Accounts, room settings and bans: a policy change is saved before the events of its round.
    private let accounts: any AccountStore
    /// File records and interrupted uploads.
    private let files: any FileCatalog
    private let retainPerRoom: Int
    private let queue = DispatchQueue(label: "qchat.store", qos: .utility)
    private let finished: @Sendable (Outcome) -> Void
    private let timed: (@Sendable (Timing) -> Void)?
    /// A test-only stand-in for a slow disk: every commit takes this long more (the worker sleeps
    /// before it), as an fsync of that length would (`--db-commit-delay-ms`, docs/RELIABILITY.md).
    private let commitDelay: Duration

    private struct Shared {
        var queued: [Job] = []
        var scheduled = false
    }
    private let shared = LockedValue(Shared())

    public init(disk: any RoomLogDisk, accounts: any AccountStore, files: any FileCatalog, retainPerRoom: Int,
                commitDelay: Duration = .zero, timed: (@Sendable (Timing) -> Void)? = nil,
                finished: @escaping @Sendable (Outcome) -> Void) {
        self.disk = disk
        self.files = files
        self.accounts = accounts
        self.retainPerRoom = retainPerRoom
        self.commitDelay = commitDelay
        self.finished = finished
        self.timed = timed
    }

    /// Queues a job; the worker's next round takes it (from any thread).
    public func submit(_ job: Job) {
        let schedule = shared.withLock { shared in
            shared.queued.append(job)
            defer { shared.scheduled = true }
            return !shared.scheduled
        }
        if schedule { queue.async { [self] in drain() } }
    }

    /// Waits until every job queued so far is done (tests, and a clean shutdown).
    public func waitUntilIdle() {
        queue.sync {}
        let more = shared.withLock { $0.scheduled }
        if more { waitUntilIdle() }
    }

    /// Rounds until nothing is queued: each takes all that waits.
    private func drain() {
        while true {
            let jobs = shared.withLock { shared -> [Job] in
                let jobs = shared.queued
                shared.queued.removeAll(keepingCapacity: true)
                if jobs.isEmpty { shared.scheduled = false }
                return jobs
            }
            guard !jobs.isEmpty else { return }
            round(jobs)
        }
    }

    private func round(_ jobs: [Job]) {
        var tickets: [UInt64] = []
        var batch = AppendBatch()
        var reads: [RoomEventRead] = []
        var settingsReads: [(token: UInt64, room: String)] = []
        var accountJobs: [Job] = []
        var forgotten: [String] = []
        for job in jobs {
            switch job {
            case .commit(let ticket, let more):
                tickets.append(ticket)
                batch.merge(more)
            case .read(let read):
                reads.append(read)
            case .readSettings(let token, let room):
                settingsReads.append((token, room))
            case .forget(let room):
                forgotten.append(room)
            case .loadAccounts, .writeAccount, .loadFiles, .storeFileRecord, .writePartialUploads, .expirePartials:
                accountJobs.append(job)
            }
        }
        let clock = ContinuousClock()
        if !tickets.isEmpty {
            let start = clock.now
            let failure = commit(batch)
            timed?(.append(clock.now - start))
            finished(.committed(tickets: tickets, failure: failure))
        }
        for room in forgotten { disk.forget(room: room) }
        for read in reads {
            let start = clock.now
            let events = try? disk.events(inRoom: read.room, after: read.after, before: read.before, limit: read.limit, newest: read.newest)
            timed?(.read(clock.now - start))
            finished(.read(read, events))
        }
        for read in settingsReads {
            finished(.settings(token: read.token, room: read.room, try? accounts.roomSettings(of: read.room)))
        }
        // In the order asked: a read sees every write asked for before it.
        for job in accountJobs {
            switch job {
            case .loadAccounts(let token, let names): finished(.accountsLoaded(token: token, loadAccounts(names)))
            case .writeAccount(let token, let write): finished(.accountWritten(token: token, writeAccount(write), write))
            case .loadFiles(let token, let query): finished(.filesLoaded(token: token, try? loadFiles(query)))
            case .storeFileRecord(let token, let file, let maxBytes): finished(.fileRecordStored(token: token, storeFile(file, maxBytes: maxBytes)))
            case .writePartialUploads(let writes, let maxBytes):
                let unused = (try? writePartials(writes, maxBytes: maxBytes)) ?? []
                if !unused.isEmpty { finished(.contentEvicted(unused)) }
            case .expirePartials(let before):
                let expired = (try? files.partials(updatedBefore: before)) ?? []
                let removed = expired.filter { (try? files.removePartial(key: $0.key)) != nil }.map(\.key)
                if !removed.isEmpty { finished(.partialsExpired(removed)) }
            default: break
            }
        }
    }

    // MARK: Files

    private func loadFiles(_ query: FileQuery) throws -> LoadedFiles {
        try files.load(query)
    }

    /// The record of a finished upload; the same upload stored before answers its record. Room is
    /// made first, as the core's own eviction does (PROTOCOL.md section 9 notes).
    private func storeFile(_ file: StoredFile, maxBytes: Int64) -> FileRecordOutcome {
        do {
            if let earlier = try files.file(uploadedBy: file.uploaderPeer, id: file.uploadID) { return .stored(earlier, unusedContent: []) }
            // Its own upload's charge is still counted until the core removes that record: not twice
            // (the file's size and the charge), or a file would go one upload early.
            let own = try files.partial(peer: file.uploaderPeer, id: file.uploadID)?.key
            let unused = try makeRoom(maxBytes: maxBytes, adding: file.size, alreadyStored: try files.hasContent(file.sha256),
                                      party: FileOwner.party(owner: file.owner, address: file.address), exceptPartial: own)
            try files.storeFile(file, event: nil, retainPerRoom: retainPerRoom)
            return .stored(file, unusedContent: unused)
        } catch {
            return .failed("\(error)")
        }
    }

    private func writePartials(_ writes: [PartialUploadWrite], maxBytes: Int64) throws -> [String] {
        var unused: [String] = []
        for write in writes {
            switch write {
            case .save(let partial):
                try files.savePartial(partial)
                // Its charge counts now: room for it.
                unused += try makeRoom(maxBytes: maxBytes, adding: 0, alreadyStored: true,
                                       party: FileOwner.party(owner: partial.owner, address: partial.address))
            case .remove(let key):
                try files.removePartial(key: key)
            }
        }
        return unused
    }

    /// Removes stored files until `adding` more bytes (none when `alreadyStored`) fit under
    /// `maxBytes` beside the stored content and every upload's charge but `exceptPartial`'s: the oldest file of the party
    /// holding the most, the uploader's `party` counting `adding` more. The content no record uses
    /// any more.
    private func makeRoom(maxBytes: Int64, adding: Int64, alreadyStored: Bool, party: String, exceptPartial: String? = nil) throws -> [String] {
        let usage = try files.usage(of: .everyone, exceptPartial: exceptPartial)
        var stored = usage.fileBytes
        let needed = usage.partialBytes + (alreadyStored ? 0 : adding)
        var unused: [String] = []
        while stored + needed > maxBytes, let evicted = try files.nextEviction(uploaderParty: party, adding: adding) {
            if try files.removeFile(id: evicted.id) {
                unused.append(evicted.sha256)
                stored -= evicted.size
            }
        }
        return unused
    }

    private func loadAccounts(_ names: [String]) -> [String: LoadedAccount?]? {
        var loaded: [String: LoadedAccount?] = [:]
        do {
            for name in names {
                guard let account = try accounts.account(named: name) else {
                    loaded[name] = .some(nil)
                    continue
                }
                loaded[name] = LoadedAccount(account: account, certificates: try accounts.certificates(ofAccount: name))
            }
        } catch {
            return nil
        }
        return loaded
    }

    private func writeAccount(_ write: AccountWrite) -> AccountWriteOutcome {
        do {
            switch write {
            case .create(let account, let certificate):
                // One thread writes: nothing can take the name between the check and the create.
                if try accounts.account(named: account.name) != nil { return .exists }
                try accounts.create(account, certificate: certificate)
            case .setPasswordHash(let name, let hash):
                try accounts.setPasswordHash(hash, ofAccount: name)
            case .bind(let name, let certificate):
                try accounts.bind(certificate: certificate, toAccount: name)
            case .unbind(let name, let certificate):
                try accounts.unbind(certificate: certificate, fromAccount: name)
            case .retire(let name):
                try accounts.setPasswordHash(nil, ofAccount: name)
                for certificate in try accounts.certificates(ofAccount: name) {
                    try accounts.unbind(certificate: certificate, fromAccount: name)
                }
            }
            return .written
        } catch {
            return .failed("\(error)")
        }
    }

    /// Commits a round's writes, in transactions of at most ``batchLimit`` events (the
    /// reservations and receipts go with the first). Returns the failure, if any. The events are
    /// decoded here, off the loop: the loop only joined their bytes around the seq.
    private func commit(_ appends: AppendBatch) -> String? {
        guard !appends.isEmpty else { return nil }
        // A policy change first: its event must not be on disk without it (a failure fails the round).
        for change in appends.policies {
            do { try accounts.save(change) } catch { return "\(error)" }
        }
        let batch = appends.decoded()
        var remaining = batch.events[...]
        var first = true
        repeat {
            let events = Array(remaining.prefix(Self.batchLimit))
            remaining = remaining.dropFirst(events.count)
            let part = first ? RoomLogBatch(events: events, receipts: batch.receipts, reservations: batch.reservations)
                             : RoomLogBatch(events: events)
            first = false
            if commitDelay > .zero { sleep(for: commitDelay) }
            do {
                try disk.commit(part, retainPerRoom: retainPerRoom)
            } catch {
                return "\(error)"
            }
        } while !remaining.isEmpty
        // A room file's record was stored before its event had a seq: it gets it now, for a
        // repeated upload's ack. Not done, that ack goes without seq; the event is stored all the same.
        for event in batch.events where event.kind == .file {
            if let id = event.file { try? files.setSequence(event.seq, ofFile: id) }
        }
        return nil
    }

    private func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let semaphore = DispatchSemaphore(value: 0)
        _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
    }
}
