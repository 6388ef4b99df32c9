import ChatServerCore
import Glibc
import LocalStore
import QuicEngine
import SQLiteStorage

/// One server's stores (issue 27 item 1; docs/PROTOCOL.md, "One server's room log"): the core
/// runs with a shared log, and its store actions go to ``LocalStoreAdapter``, whose disk (the
/// `--db` file, or memory) is on the ``StoreWorker``'s thread; the answers come back as input on
/// the loop's next turn, as the Redis link's do. For tests and measurements,
/// `QCHAT_COMMIT_DELAY_MS=N` in the environment makes a slow disk (every commit N ms longer, as a
/// slow fsync would).
extension ChatServerApp {
    static var commitDelay: Duration {
        guard let text = getenv("QCHAT_COMMIT_DELAY_MS").map({ String(cString: $0) }), let milliseconds = Int(text),
              milliseconds > 0 else { return .zero }
        return .milliseconds(milliseconds)
    }

    /// Opens the stores (the disk's reads happen here, before serving: the loop is not running
    /// yet) and starts the worker. Files a crash left in the file folder without a record go first, before
    /// any upload can begin (no upload races the listing).
    func startLocalStore() throws {
        let history = try options.databasePath.map { try SQLiteHistoryStore(path: $0) }
        let accounts: any AccountStore = try options.databasePath.map { try SQLiteAccountStore(path: $0) } ?? InMemoryAccountStore()
        let disk: any RoomLogDisk = history ?? InMemoryRoomLogDisk()
        let files: any FileCatalog = history ?? InMemoryFileCatalog(history: InMemoryHistoryStore())
        let names = fileWorker.directory.storedNames()
        perform(files.strayFileBytes(content: names.content, partials: names.partials))
        let outcomes = loop.makeChannel { [unowned self] (outcome: StoreWorker.Outcome) in
            guard let localStore else { return }
            answer(localStore.workerFinished(outcome))
        }
        let timings = loop.makeChannel { [unowned self] (timing: StoreWorker.Timing) in
            switch timing {
            case .append(let duration): metrics.historyAppend.observe(nanoseconds: Self.nanoseconds(duration))
            case .read(let duration): metrics.historyRead.observe(nanoseconds: Self.nanoseconds(duration))
            }
        }
        let worker = StoreWorker(disk: disk, accounts: accounts, files: files, retainPerRoom: options.core.historyPerRoom,
                                 commitDelay: Self.commitDelay, timed: { timings.send($0) }) { outcome in outcomes.send(outcome) }
        // Without --db an idle room's events live in memory: the oldest idle ones go beyond --idle-rooms.
        localStore = LocalStoreAdapter(worker: worker, reserved: try disk.reservedSequences(), receipts: try disk.storedReceipts(),
                                       loginFailureKeys: options.core.loginFailureKeys,
                                       idleRoomLimit: history == nil ? options.core.idleRoomLimit : nil)
        perform(state.serverBansChanged(try accounts.serverBans(), now: unixMilliseconds()))
        state.clusterReady(true)
        tickLocalStore()
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    func performLocalStoreAction(_ action: ServerAction) {
        guard let localStore, let answers = localStore.perform(action, now: unixMilliseconds()), !answers.isEmpty else { return }
        // On the loop's next turn, as an answer from Redis would come: never within this perform.
        loop.schedule(at: .now()) { [unowned self] in answer(answers) }
    }

    private func answer(_ answers: [LocalStoreAnswer]) {
        for answer in answers {
            let now = unixMilliseconds()
            if case .delivered = answer {
                let deliveredBefore = metrics.deliveredTotal
                perform(state.storeAnswered(answer, now: now))
                metrics.noteDeliveries(since: deliveredBefore, receivedAt: MonotonicTime.now())
            } else {
                perform(state.storeAnswered(answer, now: now))
            }
        }
    }

    /// The core's clock for what waits in it; interrupted uploads not resumed within their time go.
    private func tickLocalStore() {
        perform(state.tick(now: unixMilliseconds()))
        loop.schedule(at: .now() + .seconds(1)) { [weak self] in self?.tickLocalStore() }
    }

    func expireLocalPartials() {
        localStore?.expirePartials(olderThan: options.core.partialUploadMilliseconds, now: unixMilliseconds())
    }
}
