import ChatServerCore
import Glibc
import LocalStore
import QuicEngine
import SQLiteStorage

/// One server on the local store adapter (issue 27 item 1; docs/PROTOCOL.md, "One server's room
/// log"): the core runs with a shared log, and its store actions go to ``LocalStoreAdapter``,
/// whose disk is on the ``StoreWorker``'s thread; the answers come back as input on the loop's
/// next turn, as the Redis link's do. Until issue 27's step 3 makes it the only path, it is
/// chosen with the environment: `QCHAT_STORE_WORKER=1`, and for tests and measurements
/// `QCHAT_COMMIT_DELAY_MS=N`, a slow disk (every commit N ms longer, as a slow fsync).
extension ChatServerApp {
    /// Whether this server runs on the local store adapter.
    static func usesStoreWorker(_ options: ServerOptions) -> Bool {
        options.cluster == nil && getenv("QCHAT_STORE_WORKER").map { String(cString: $0) == "1" } == true
    }

    static var commitDelay: Duration {
        guard let text = getenv("QCHAT_COMMIT_DELAY_MS").map({ String(cString: $0) }), let milliseconds = Int(text),
              milliseconds > 0 else { return .zero }
        return .milliseconds(milliseconds)
    }

    /// Opens the stores (the disk's reads happen here, before serving) and starts the worker.
    func startLocalStore() throws {
        let history = try options.databasePath.map { try SQLiteHistoryStore(path: $0) }
        let accounts: any AccountStore = try options.databasePath.map { try SQLiteAccountStore(path: $0) } ?? InMemoryAccountStore()
        let disk: any RoomLogDisk = history ?? InMemoryRoomLogDisk()
        let files: any FileCatalog = history ?? InMemoryFileCatalog(history: InMemoryHistoryStore())
        let outcomes = loop.makeChannel { [unowned self] (outcome: StoreWorker.Outcome) in
            guard let localStore else { return }
            answer(localStore.workerFinished(outcome))
        }
        let worker = StoreWorker(disk: disk, accounts: accounts, files: files, retainPerRoom: options.core.historyPerRoom,
                                 commitDelay: Self.commitDelay) { outcome in outcomes.send(outcome) }
        localStore = LocalStoreAdapter(worker: worker, reserved: try disk.reservedSequences(), receipts: try disk.storedReceipts())
        perform(state.serverBansChanged(try accounts.serverBans(), now: unixMilliseconds()))
        state.clusterReady(true)
        tickLocalStore()
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
                metrics.noteDeliveries(since: deliveredBefore, receivedAt: QuicTime.now())
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
