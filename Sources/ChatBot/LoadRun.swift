import CLIOptions
import Glibc
import QuicIO

/// The life of one load run, whatever the protocol: the connect phase, the open-loop schedule of
/// messages over the warm-up and the measured window, the drain, the report. `chat-bot load`
/// (qchat over QUIC) and `chat-bot irc-load` (IRC over TLS over TCP) are subclasses that connect,
/// send and receive in their protocol; the schedule, the statistics and the report are this one
/// copy, so both measure the same way. Everything runs on one event loop.
class LoadRun {
    enum Phase: String { case connecting, warmup, measuring, draining, done }

    let options: LoadOptions
    /// "chat-bot load" or "chat-bot irc-load", for what it prints.
    let name: String
    let loop: EventLoop
    var phase = Phase.connecting
    var stats = LoadStatistics()
    var ledger = DeliveryLedger()

    let started = MonotonicTime.now()
    var connectsDone: MonotonicTime?
    var runStart = MonotonicTime.now()
    var measureStart = MonotonicTime.now()
    var measureEnd = MonotonicTime.now()
    var messages = OpenLoopSchedule(start: .now(), end: .now(), rate: 0)
    var pumpTimer: LoopTimerID?
    var drainDeadline = MonotonicTime.now()
    let progress = ProgressLine()
    var status: Int32 = 0
    /// The servers the clients are spread over, as the report names them.
    var serverLabels: [String]

    init(options: LoadOptions, name: String, loop: EventLoop) throws {
        self.options = options
        self.name = name
        self.loop = loop
        serverLabels = options.connection.servers.map(\.description)
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in interrupted() }
    }

    func run() -> Int32 {
        connectMore()
        loop.schedule(at: started + LoadRun.duration(options.connectTimeout)) { [unowned self] in
            if phase == .connecting { connectPhaseTimedOut() }
        }
        scheduleProgress(at: started + .seconds(1))
        loop.run()
        return status
    }

    func isMeasured(_ intended: MonotonicTime) -> Bool { intended >= measureStart && intended < measureEnd }

    // MARK: What a protocol provides

    /// Opens the first connection of `slot` (it ends in `firstConnectionEnded`).
    func startFirstConnection(slot: Int) {}

    /// The connect phase's deadline passed: closes the clients still connecting, each counted
    /// in `stats.initialFailed`.
    func failClientsStillConnecting() {}

    /// Sends one room message intended for `intended` (the pump calls it for each one due).
    func sendMessage(intended: MonotonicTime, now: MonotonicTime) {}

    /// Schedules other traffic than room messages over [now, end) (typing, churn).
    func scheduleExtraTraffic(from now: MonotonicTime, to end: MonotonicTime) {}

    /// Sends whatever other traffic is due by `now`; returns when the next falls due.
    func sendExtraTraffic(now: MonotonicTime) -> MonotonicTime? { nil }

    /// Every receiver's membership and what it got, for the ledger.
    var receivers: [DeliveryLedger.Receiver] { [] }

    /// Closes every connection (the loop stops shortly after).
    func quitAll() {}

    /// Clients joined now, for the progress line.
    var joinedCount: Int { 0 }

    /// Clients whose connection was lost and that are not in their room again (yet).
    var unfinishedMoves: Int { 0 }

    /// Messages sent and never acknowledged (warm-up ones included), now.
    var unacknowledged: Int { 0 }

    /// Protocol-specific parts of the progress line.
    func progressExtras() -> [String] { [] }

    // MARK: Phases

    /// Starts first connections until the in-flight limit or the client count is reached.
    func connectMore() {
        while stats.connectsStarted < options.clients,
              stats.connectsStarted - stats.initialJoined - stats.initialFailed < options.connectParallel {
            startFirstConnection(slot: stats.connectsStarted)
            stats.connectsStarted += 1
        }
    }

    /// A first connection joined its room or failed: the next may start; when all are done, the run.
    func firstConnectionEnded(joined: Bool) {
        if joined { stats.initialJoined += 1 } else { stats.initialFailed += 1 }
        connectMore()
        if stats.initialJoined + stats.initialFailed == options.clients { beginRun() }
    }

    /// The connect phase's deadline: the run begins with the clients that joined.
    private func connectPhaseTimedOut() {
        failClientsStillConnecting()
        stats.initialFailed += options.clients - stats.connectsStarted
        stats.connectsStarted = options.clients
        beginRun()
    }

    /// Every first connection has joined (or failed): the schedules start now.
    func beginRun() {
        let now = MonotonicTime.now()
        connectsDone = now
        let joined = stats.initialJoined
        progress.finish("\(name): connected \(joined)/\(options.clients) clients in "
                        + "\(LoadReport.seconds(now - started)) s (connect p99 \(LoadReport.milliseconds(stats.connectTime.percentile(99))) ms)")
        guard joined > 0 else {
            Console.error("\(name): no client could connect; is a server running at \(options.connection.serverList)?")
            status = 1
            return stop()
        }
        runStart = now
        measureStart = now + LoadRun.duration(options.warmup)
        measureEnd = measureStart + LoadRun.duration(options.duration)
        phase = options.warmup > 0 ? .warmup : .measuring
        messages = OpenLoopSchedule(start: now, end: measureEnd, rate: options.rate, arrivals: options.arrivals, seed: options.seed)
        scheduleExtraTraffic(from: now, to: measureEnd)
        loop.schedule(at: measureStart) { [unowned self] in if phase == .warmup { phase = .measuring } }
        loop.schedule(at: measureEnd) { [unowned self] in beginDrain() }
        pump()
    }

    /// The open-loop pump: whatever is due by now is sent now, each message stamped with its
    /// intended time, however late the pump runs.
    func pump() {
        pumpTimer = nil
        guard phase == .warmup || phase == .measuring else { return }
        let now = MonotonicTime.now()
        while let intended = messages.takeDue(by: now) {
            stats.worstSendLag = max(stats.worstSendLag, (now - intended).nanoseconds)
            sendMessage(intended: intended, now: now)
        }
        let next = [messages.nextDue, sendExtraTraffic(now: now)].compactMap { $0 }.min()
        if let next { pumpTimer = loop.schedule(at: next) { [unowned self] in pump() } }
    }

    /// The measured window is over: nothing more is sent; wait for what is still on its way.
    func beginDrain() {
        guard phase == .warmup || phase == .measuring else { return }
        phase = .draining
        if let pumpTimer { loop.cancel(pumpTimer) }
        drainDeadline = .now() + LoadRun.duration(options.drain)
        checkDrained()
    }

    private func checkDrained() {
        guard phase == .draining else { return }
        let transfersDone = stats.filesStarted == stats.filesCompleted + stats.filesFailed
        if (unacknowledged == 0 && transfersDone && nothingMissing()) || MonotonicTime.now() >= drainDeadline { return finish() }
        loop.schedule(at: .now() + .milliseconds(50)) { [unowned self] in checkDrained() }
    }

    private func nothingMissing() -> Bool {
        ledger.prepare()
        return receivers.allSatisfy { ledger.tally($0, stopAtFirstMissing: true).missing == 0 }
    }

    private func finish() {
        phase = .done
        let report = LoadReport(run: self)
        Console.line(report.table())
        if let path = options.jsonPath, !FileInput.write(report.json(), to: path) {
            Console.error("\(name): cannot write \(path)")
        }
        status = report.passed ? 0 : 1
        // The benchmark scripts stop counting the server's CPU here: quitting is not load.
        progress.finish("\(name): drained; closing the connections")
        stop()
    }

    private func interrupted() {
        Console.error("\(name): interrupted")
        status = 130
        stop()
    }

    /// Quits every connection, then stops once the goodbyes are out.
    func stop() {
        phase = .done
        quitAll()
        loop.schedule(at: .now() + .milliseconds(200)) { [unowned self] in loop.stop() }
    }

    /// Senders take turns: the next client in `slots` from `cursor` on that `isReady`, round-robin.
    static func nextReady<Client>(in slots: [Client?], after cursor: inout Int, where isReady: (Client) -> Bool) -> Client? {
        for _ in 0..<slots.count {
            let slot = cursor % slots.count
            cursor += 1
            if let client = slots[slot], isReady(client) { return client }
        }
        return nil
    }

    static func duration(_ seconds: Double) -> TimeSpan {
        TimeSpan(nanoseconds: UInt64((seconds * 1e9).rounded()))
    }
}
