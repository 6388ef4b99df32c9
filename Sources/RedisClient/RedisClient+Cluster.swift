import EventRuntime

extension RedisClient {
    /// The slot map in use (nil before the first CLUSTER SLOTS answer, and always standalone).
    public var currentSlotMap: RedisSlotMap? { slotMap }

    func sendToCluster(_ command: RedisCommand, slot: Int?, durable: Bool, redirections: Int, asking target: RedisServerAddress? = nil,
                       _ completion: @escaping RedisCompletion) {
        guard let slotMap else { return completion(.failure(.unavailable("Redis Cluster slot map not known yet"))) }
        guard let address = target ?? (slot.flatMap { slotMap.owner(of: $0) } ?? slotMap.servingMasters.first) else {
            return completion(.failure(.unavailable("no master serves slot \(slot ?? -1)")))
        }
        let node = node(address)
        // ASKING and the command go out back to back on one connection: nothing can come between.
        if target != nil { node.commands.send(RedisCommand("ASKING"), nil) }
        node.commands.send(command, durable: durable) { [weak self] result in
            guard let self else { return completion(result) }
            switch result {
            case .success(.error(let text)):
                if let redirect = RedisRedirect(error: text) {
                    return follow(redirect, command: command, durable: durable, redirections: redirections, completion)
                }
                // A master demoted by a failover, or a cluster that lost a shard: the map is stale.
                if text.hasPrefix("READONLY") || text.hasPrefix("CLUSTERDOWN") || text.hasPrefix("MASTERDOWN") {
                    refreshSlotMap()
                }
            case .failure(.connectionLost), .failure(.unavailable):
                // The master may have failed over: learn the map again (debounced).
                refreshSlotMap()
            default:
                break
            }
            completion(result)
        }
    }

    private func follow(_ redirect: RedisRedirect, command: RedisCommand, durable: Bool, redirections: Int,
                        _ completion: @escaping RedisCompletion) {
        guard redirections < Self.maxRedirections else {
            return completion(.failure(.redirection("more than \(Self.maxRedirections) redirections for \(command.name)")))
        }
        switch redirect {
        case .moved(let slot, let address):
            // This slot is known at once; the rest of the map is learned in the background.
            slotMap?.assign(slot...slot, to: address)
            refreshSlotMap()
            sendToCluster(command, slot: slot, durable: durable, redirections: redirections + 1, completion)
        case .ask(let slot, let address):
            sendToCluster(command, slot: slot, durable: durable, redirections: redirections + 1, asking: address, completion)
        }
    }

    /// Asks a connected node for CLUSTER SLOTS and installs the answer; one request at a time
    /// (a request wanted meanwhile runs after it).
    public func refreshSlotMap() {
        guard isCluster, !isStopped else { return }
        guard !refreshInFlight else {
            refreshAgain = true
            return
        }
        let candidates = (slotMap?.servingMasters ?? []) + seeds
        guard let address = candidates.first(where: { nodes[$0]?.commandLink.state == .open }) else {
            // Nothing open: the next connection that opens asks (RedisClient.node(_:)).
            refreshAgain = true
            for candidate in candidates { _ = node(candidate) }
            return
        }
        refreshInFlight = true
        node(address).commands.send(RedisCommand("CLUSTER", "SLOTS")) { [weak self] result in
            guard let self else { return }
            refreshInFlight = false
            if case .success(let reply) = result, let map = RedisSlotMap(clusterSlots: reply, fallbackHost: address.host),
               !map.masters.isEmpty {
                install(map)
            }
            if refreshAgain {
                refreshAgain = false
                refreshSlotMap()
            }
        }
    }

    private var seeds: [RedisServerAddress] {
        if case .cluster(let seeds) = topology { return seeds }
        return []
    }

    private func install(_ map: RedisSlotMap) {
        let changed = slotMap != map
        slotMap = map
        for master in map.servingMasters { _ = node(master) }
        // Nodes that serve nothing any more (and are no seeds) are closed.
        let keep = Set(map.servingMasters + seeds)
        for (address, node) in nodes where !keep.contains(address) {
            node.stop(.connectionLost("\(address) no longer serves slots"))
            nodes[address] = nil
        }
        placeSubscriptions()
        if changed { onEvent(.slotMapUpdated(masters: map.servingMasters.count)) }
    }
}
