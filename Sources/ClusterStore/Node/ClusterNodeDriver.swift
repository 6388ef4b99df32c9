import ChatServerCore
import EventRuntime
import RedisClient

/// Performs a ``ClusterNode``'s actions: its commands on the ``RedisClient`` (each reply fed
/// back, Redis's error replies as failures), its timers on the event loop, its reports, log
/// lines and renewal switch through the closures it was given. Nothing of the node's logic is
/// here. Loop thread only.
public final class ClusterNodeDriver {
    public private(set) var node: ClusterNode
    let client: RedisClient
    let loop: EventLoop
    /// The rooms followed with the last seq delivered in each (read when the store lost its data).
    let followed: () -> [(room: String, delivered: Int64)]
    let report: (ClusterNode.Report) -> Void
    let logger: (LogLevel, String, [String: String]) -> Void
    let renewing: (Bool) -> Void
    private var leaving: [() -> Void] = []
    /// Set by ``stop()``: what is still in flight (a reply, a timer) then does nothing.
    private var stopped = false

    public init(_ node: ClusterNode, client: RedisClient, loop: EventLoop, followed: @escaping () -> [(room: String, delivered: Int64)],
                report: @escaping (ClusterNode.Report) -> Void, logger: @escaping (LogLevel, String, [String: String]) -> Void,
                renewing: @escaping (Bool) -> Void) {
        self.node = node
        self.client = client
        self.loop = loop
        self.followed = followed
        self.report = report
        self.logger = logger
        self.renewing = renewing
    }

    // Read through here rather than `node.`: an append reads them, and the machine is not copied.
    public var isReady: Bool { node.isReady }
    public var epochChecked: Bool { node.epochChecked }
    public var appendEpoch: (key: String, value: String)? { node.appendEpoch }
    public var figures: ClusterNode.Figures { node.figures }
    public var filesFolderMark: String { node.configuration.filesFolderMark }

    public func start() { perform(node.start()) }

    public func connected(_ server: RedisServerAddress) { perform(node.connected(server: "\(server)")) }

    public func disconnected(_ server: RedisServerAddress, failure: RedisFailure, holdsEpoch: Bool) {
        perform(node.disconnected(server: "\(server)", error: failure.description, holdsEpoch: holdsEpoch))
    }

    public func slotMapUpdated(masters: Int) { perform(node.slotMapUpdated(masters: masters)) }

    public func serverBansChanged() { perform(node.serverBansChanged()) }

    public func storeLost(room: String) { perform(node.storeLost(room: room)) }

    public func renewed(_ result: Result<NodeDirectory.Heartbeat, RoomStoreError>) { perform(node.renewed(result, now: .now())) }

    public func setFilesFolderMark(_ mark: String) { node.configuration.filesFolderMark = mark }

    /// A planned stop; `done` once the directory was told (or could not be).
    public func leave(_ done: @escaping () -> Void) {
        leaving.append(done)
        perform(node.leave())
    }

    /// The link stops: answers and timers still in flight are dropped. They hold the driver
    /// strongly (the client answers every command once, `.stopped` at the latest; a timer fires
    /// or goes with its loop), never `weak`: a weak reference gives the driver a side table that
    /// only the driver's reference count points to, shifted, once the last weak one is gone,
    /// which LeakSanitizer reports as lost in every node alive at exit (docs/SANITIZERS.md,
    /// "weak-reference side tables of live cluster objects").
    public func stop() { stopped = true }

    public func perform(_ actions: [ClusterNode.Action]) {
        guard !stopped else { return }
        for action in actions {
            switch action {
            case .send(let command): send(command)
            case .schedule(let timer, let delay):
                loop.schedule(at: .now() + delay) { [self] in
                    guard !stopped else { return }
                    perform(node.fired(timer, now: .now()))
                }
            case .report(let outcome): report(outcome)
            case .log(let level, let event, let fields): logger(level, event, fields)
            case .renewing(let on): renewing(on)
            case .left:
                let waiting = leaving
                leaving.removeAll()
                for done in waiting { done() }
            }
        }
    }

    private func send(_ command: ClusterNode.Command) {
        switch command.route {
        case .key(let key):
            client.send(command.command, key: key, durable: command.durable) { [self] result in
                guard !stopped else { return }
                perform(node.answered(command.id, RoomEventLog.storeResult(result), now: .now(), followed: followed))
            }
        case .eachDataServer:
            let servers = client.dataServers
            var replies: [(server: String, result: Result<RedisReply, RoomStoreError>)] = []
            guard !servers.isEmpty else { return perform(node.answered(command.id, each: [], now: .now())) }
            for server in servers {
                client.send(command.command, to: server) { [self] result in
                    replies.append(("\(server)", RoomEventLog.storeResult(result)))
                    guard !stopped, replies.count == servers.count else { return }
                    perform(node.answered(command.id, each: replies, now: .now()))
                }
            }
        }
    }
}
