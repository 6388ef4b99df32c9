import CLIOptions
import ChatClientKit
import Glibc
import QuicEngine

/// `chat-bot load`: connects every client (the connect storm), then runs an open-loop schedule of
/// room messages, typing datagrams and churn for the warm-up and the measured window, waits for
/// outstanding deliveries, and reports. Everything runs on one event loop and one driver.
final class LoadGenerator {
    enum Phase: String { case connecting, warmup, measuring, draining, done }

    let options: LoadOptions
    let loop: EventLoop
    let pool: ChatSessionPool
    var phase = Phase.connecting
    var stats = LoadStatistics()
    var ledger = DeliveryLedger()
    /// Every client of the run, churned ones included (they are receivers for a while).
    var clients: [LoadClient] = []
    /// The client that fills each slot now.
    var current: [LoadClient?]
    /// Clients by the nick the server assigned, to attribute relayed typing.
    var byNick: [String: LoadClient] = [:]
    var joinedPerRoom: [String: Int] = [:]
    var nextSenderSeq: [Int]
    var senderCursor = 0
    var typistCursor = 0
    var churnCursor = 0

    let started = QuicTime.now()
    var connectsDone: QuicTime?
    var runStart = QuicTime.now()
    var measureStart = QuicTime.now()
    var measureEnd = QuicTime.now()
    var messages = OpenLoopSchedule(start: .now(), end: .now(), rate: 0)
    var typing = OpenLoopSchedule(start: .now(), end: .now(), rate: 0)
    var churn = OpenLoopSchedule(start: .now(), end: .now(), rate: 0)
    var pumpTimer: LoopTimerID?
    var drainDeadline = QuicTime.now()
    let progress = ProgressLine()
    var status: Int32 = 0

    init(options: LoadOptions) throws {
        self.options = options
        loop = try EventLoop()
        pool = try options.connection.makePool(on: loop, datagrams: !options.typingOnStream)
        current = [LoadClient?](repeating: nil, count: options.clients)
        nextSenderSeq = [Int](repeating: 0, count: options.clients)
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in interrupted() }
    }

    func run() -> Int32 {
        connectMore()
        loop.schedule(at: started + LoadGenerator.duration(options.connectTimeout)) { [unowned self] in connectPhaseTimedOut() }
        scheduleProgress(at: started + .seconds(1))
        loop.run()
        return status
    }

    func roomName(forSlot slot: Int) -> String { "\(options.roomPrefix)\(slot % options.rooms)" }

    func isMeasured(_ intended: QuicTime) -> Bool { intended >= measureStart && intended < measureEnd }

    // MARK: Phases

    /// Every first connection has joined (or failed): the schedules start now.
    func beginRun() {
        let now = QuicTime.now()
        connectsDone = now
        let joined = stats.initialJoined
        progress.finish("chat-bot load: connected \(joined)/\(options.clients) clients in "
                        + "\(LoadReport.seconds(now - started)) s (connect p99 \(LoadReport.milliseconds(stats.connectTime.percentile(99))) ms)")
        guard joined > 0 else {
            Console.error("chat-bot load: no client could connect; is a server running at \(options.connection.host):\(options.connection.port)?")
            status = 1
            return stop()
        }
        runStart = now
        measureStart = now + LoadGenerator.duration(options.warmup)
        measureEnd = measureStart + LoadGenerator.duration(options.duration)
        phase = options.warmup > 0 ? .warmup : .measuring
        messages = OpenLoopSchedule(start: now, end: measureEnd, rate: options.rate, arrivals: options.arrivals, seed: options.seed)
        typing = OpenLoopSchedule(start: now, end: measureEnd, rate: options.typingRate, arrivals: options.arrivals, seed: options.seed &+ 1)
        churn = OpenLoopSchedule(start: now, end: measureEnd, rate: options.churn)
        loop.schedule(at: measureStart) { [unowned self] in if phase == .warmup { phase = .measuring } }
        loop.schedule(at: measureEnd) { [unowned self] in beginDrain() }
        pump()
    }

    /// The measured window is over: nothing more is sent; wait for what is still on its way.
    func beginDrain() {
        guard phase == .warmup || phase == .measuring else { return }
        phase = .draining
        if let pumpTimer { loop.cancel(pumpTimer) }
        drainDeadline = .now() + LoadGenerator.duration(options.drain)
        checkDrained()
    }

    private func checkDrained() {
        guard phase == .draining else { return }
        if (stats.pendingMeasured == 0 && nothingMissing()) || QuicTime.now() >= drainDeadline { return finish() }
        loop.schedule(at: .now() + .milliseconds(50)) { [unowned self] in checkDrained() }
    }

    private func nothingMissing() -> Bool {
        ledger.prepare()
        return clients.allSatisfy { client in
            client.receiver.map { ledger.tally($0, stopAtFirstMissing: true).missing == 0 } ?? true
        }
    }

    private func finish() {
        phase = .done
        let report = LoadReport(generator: self)
        Console.line(report.table())
        if let path = options.jsonPath, !FileInput.write(report.json(), to: path) {
            Console.error("chat-bot load: cannot write \(path)")
        }
        status = report.passed ? 0 : 1
        stop()
    }

    private func interrupted() {
        Console.error("chat-bot load: interrupted")
        status = 130
        stop()
    }

    /// Quits every connection, then stops once the CONNECTION_CLOSE packets are out.
    func stop() {
        phase = .done
        for client in clients where client.session.isOpen {
            if client.state != .failed { client.state = .gone }
            client.session.quit()
        }
        loop.schedule(at: .now() + .milliseconds(200)) { [unowned self] in loop.stop() }
    }

    static func duration(_ seconds: Double) -> QuicDuration {
        QuicDuration(nanoseconds: UInt64((seconds * 1e9).rounded()))
    }
}
