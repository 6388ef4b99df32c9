import EventRuntime

/// The Redis client of a process, on its event loop: one standalone server, or a Redis Cluster
/// reached through seed addresses. Commands are routed by key slot (cluster), pipelined on one
/// connection per server, and each is answered exactly once, on the loop thread: with its reply,
/// or with a ``RedisFailure`` when no reply can come. Pub/sub runs on a second connection per
/// server; subscriptions survive reconnects and slot moves, with an event when a gap is possible.
///
/// Loop thread only: create, call and stop it from the loop's handlers.
public final class RedisClient {
    public enum Topology: Sendable, Equatable {
        case standalone(RedisServerAddress)
        /// Seeds: any of the cluster's nodes; the slot map comes from the first that answers.
        case cluster(seeds: [RedisServerAddress])
    }

    public let topology: Topology
    let loop: EventLoop
    let settings: RedisConnectionSettings
    let onEvent: (RedisClientEvent) -> Void
    let random = RandomBytes()
    let readBuffer = RedisReadBuffer()
    var nodes: [RedisServerAddress: RedisNode] = [:]
    var dirty: [RedisLink] = []
    var isStopped = false
    /// Redis Cluster state (RedisClient+Cluster.swift).
    var slotMap: RedisSlotMap?
    var refreshInFlight = false
    /// A refresh was wanted while one ran, or while no connection was open.
    var refreshAgain = false
    /// Where each wanted subscription is placed (nil: waiting for a slot map).
    var placements: [RedisSubscription: RedisPlacement] = [:]
    /// Redirections one command may follow before it fails.
    public static let maxRedirections = 5

    public init(loop: EventLoop, topology: Topology, settings: RedisConnectionSettings = RedisConnectionSettings(),
                onEvent: @escaping (RedisClientEvent) -> Void) {
        self.loop = loop
        self.topology = topology
        self.settings = settings
        self.onEvent = onEvent
        loop.addTick { [weak self] in
            self?.flushDirty()
            return (nil, false)
        }
    }

    public var isCluster: Bool { if case .cluster = topology { return true } else { return false } }

    /// Connects (and, on a cluster, fetches the slot map).
    public func start() {
        switch topology {
        case .standalone(let server):
            node(server).commandLink.start()
        case .cluster(let seeds):
            for seed in seeds { node(seed).commandLink.start() }
        }
    }

    deinit { stop() }

    /// Closes every connection; what waits is answered with `.stopped`. No event follows.
    public func stop() {
        guard !isStopped else { return }
        isStopped = true
        for node in nodes.values { node.stop(.stopped) }
        nodes.removeAll()
    }

    /// Sends `command`, routed on a cluster to the master of `key`'s slot (any master without a
    /// key), following MOVED and ASK redirections. A `durable` write is answered only once
    /// `settings.replicasToWaitFor` replicas confirmed it (``RedisReplicaWait``), else it fails
    /// ``RedisFailure/notReplicated(_:)``: what a client was told is stored survives a failover.
    public func send(_ command: RedisCommand, key: [UInt8]? = nil, durable: Bool = false, _ completion: @escaping RedisCompletion) {
        guard !isStopped else { return completion(.failure(.stopped)) }
        switch topology {
        case .standalone(let server):
            node(server).commands.send(command, durable: durable, completion)
        case .cluster:
            sendToCluster(command, slot: key.map { RedisKeySlot.slot(of: $0) }, durable: durable, redirections: 0, completion)
        }
    }

    public func send(_ command: RedisCommand, key: String, durable: Bool = false, _ completion: @escaping RedisCompletion) {
        send(command, key: Array(key.utf8), durable: durable, completion)
    }

    /// Sends `command` to `server` itself (no routing, no redirection): a question about that
    /// server, such as its `INFO`.
    public func send(_ command: RedisCommand, to server: RedisServerAddress, _ completion: @escaping RedisCompletion) {
        guard !isStopped else { return completion(.failure(.stopped)) }
        node(server).commands.send(command, durable: false, completion)
    }

    /// The servers that hold data: the one Redis, or the masters of the current slot map.
    public var dataServers: [RedisServerAddress] {
        switch topology {
        case .standalone(let server): [server]
        case .cluster: slotMap?.servingMasters ?? []
        }
    }

    /// Whether the command connection to `server` is open right now.
    public func isConnected(_ server: RedisServerAddress) -> Bool { nodes[server]?.commandLink.state == .open }

    /// Drops every connection as a network failure would (each then reconnects): what waits
    /// fails with `connectionLost`. For fault tests and for an owner that stopped trusting them.
    public func dropConnections(reason: String = "dropped by the owner") {
        for node in nodes.values {
            node.commandLink.drop(.connectionLost(reason))
            node.subscriberLink.drop(.connectionLost(reason))
        }
    }

    /// The node for `address`, created (and its command connection started) on first use.
    func node(_ address: RedisServerAddress) -> RedisNode {
        if let node = nodes[address] { return node }
        let handshake = !isCluster && settings.database != 0 ? [RedisCommand("SELECT", String(settings.database))] : []
        let node = RedisNode(address: address, loop: loop, settings: settings, handshake: handshake, random: random,
                             readBuffer: readBuffer)
        // Weak: a link stopped while the client goes away must not call back into it.
        node.commands.markDirty = { [weak self] in self?.dirty.append($0) }
        node.subscriptions.markDirty = { [weak self] in self?.dirty.append($0) }
        node.subscriptions.onEvent = { [weak self] event in
            guard let self, !isStopped else { return }
            subscriberEvent(event, from: address)
        }
        node.subscriptions.onInterrupted = { [weak self] in
            guard let self, !isStopped else { return }
            onEvent(.subscriptionsInterrupted($0))
        }
        node.commandLink.onStateChange = { [weak self] failure in
            guard let self, !isStopped else { return }
            if let failure {
                onEvent(.disconnected(address, failure))
                if isCluster { refreshSlotMap() }
            } else {
                onEvent(.connected(address))
                if isCluster, slotMap == nil || refreshAgain {
                    refreshAgain = false
                    refreshSlotMap()
                }
            }
        }
        nodes[address] = node
        if !isStopped { node.commandLink.start() }
        return node
    }

    private func flushDirty() {
        guard !dirty.isEmpty else { return }
        let links = dirty
        dirty.removeAll(keepingCapacity: true)
        for link in links { link.flush() }
    }
}
