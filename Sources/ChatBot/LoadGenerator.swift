import CLIOptions
import ChatClientKit
import Glibc
import QuicIO

/// `chat-bot load`: connects every client (the connect storm), then runs an open-loop schedule of
/// room messages, typing datagrams and churn for the warm-up and the measured window, waits for
/// outstanding deliveries, and reports. Everything runs on one event loop and one QUIC driver;
/// the phases, schedule and statistics are `LoadRun`'s.
final class LoadGenerator: LoadRun {
    let pool: ChatSessionPool
    /// Every address of every `--server`: slot N connects to server N mod their count.
    let servers: [ServerAddress]
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
    var typing = OpenLoopSchedule(start: .now(), end: .now(), rate: 0)
    var churn = OpenLoopSchedule(start: .now(), end: .now(), rate: 0)
    var fileUploads = OpenLoopSchedule(start: .now(), end: .now(), rate: 0)
    var uploaderCursor = 0
    /// The random bytes every upload sends and their SHA-256, made before the run so that neither
    /// the writing nor the hashing stalls the loop while it measures.
    var uploadSource: String?
    var uploadDigest = ""
    /// The jitter of the moves' backoff.
    var random = SystemRandomNumberGenerator()

    init(options: LoadOptions) throws {
        let loop = try EventLoop()
        pool = try options.connection.makePool(on: loop, datagrams: !options.typingOnStream)
        servers = try options.connection.resolvedServers()
        current = [LoadClient?](repeating: nil, count: options.clients)
        nextSenderSeq = [Int](repeating: 0, count: options.clients)
        try super.init(options: options, name: "chat-bot load", loop: loop)
        if servers.count > 1 { serverLabels = servers.map(\.label) }
        if options.fileRate > 0 && options.fileSize > 0 {
            let source = try ScriptBot.randomFile(options.fileSize)
            uploadSource = source
            uploadDigest = try FileTransfers.sha256(ofFile: source)
        }
    }

    func roomName(forSlot slot: Int) -> String { "\(options.roomPrefix)\(slot % options.rooms)" }

    // MARK: LoadRun

    override func startFirstConnection(slot: Int) { startClient(slot: slot) }

    override func failClientsStillConnecting() {
        for client in clients where client.state == .connecting {
            client.state = .failed
            client.session.quit()
            stats.initialFailed += 1
        }
    }

    override func sendMessage(intended: MonotonicTime, now: MonotonicTime) { sendRoomMessage(intended: intended) }

    override func scheduleExtraTraffic(from now: MonotonicTime, to end: MonotonicTime) {
        typing = OpenLoopSchedule(start: now, end: end, rate: options.typingRate, arrivals: options.arrivals, seed: options.seed &+ 1)
        churn = OpenLoopSchedule(start: now, end: end, rate: options.churn)
        if options.fileRate > 0 && options.fileSize > 0 {
            fileUploads = OpenLoopSchedule(start: now, end: end, rate: options.fileRate)
        }
    }

    override func sendExtraTraffic(now: MonotonicTime) -> MonotonicTime? {
        while let intended = typing.takeDue(by: now) { sendTyping(intended: intended) }
        while churn.takeDue(by: now) != nil { churnOne() }
        while fileUploads.takeDue(by: now) != nil { startUpload() }
        return [typing.nextDue, churn.nextDue, fileUploads.nextDue].compactMap { $0 }.min()
    }

    override var receivers: [DeliveryLedger.Receiver] { clients.compactMap(\.receiver) }

    override var unacknowledged: Int { clients.reduce(0) { $0 + $1.pending.count } }

    override func quitAll() {
        removeUploadSource()
        options.connection.saveTicket(of: pool)
        for client in clients where client.session.isOpen {
            if client.state != .failed { client.state = .gone }
            client.session.quit()
        }
    }

    override func progressExtras() -> [String] {
        var parts = ["rate-limited \(stats.rateLimited)"]
        if options.typingRate > 0 { parts.append("typing \(stats.recentTyping)/s") }
        if options.churn > 0 { parts.append("churned \(stats.churnStarted)") }
        let moving = movingCount
        if stats.moves > 0 || moving > 0 { parts.append("moved \(stats.moves)" + (moving > 0 ? " (\(moving) moving)" : "")) }
        if stats.filesStarted > 0 { parts.append("files \(stats.filesCompleted)/\(stats.filesStarted)") }
        return parts
    }

    override var joinedCount: Int { clients.count { $0.state == .joined } }

    override var unfinishedMoves: Int { movingCount }
}
