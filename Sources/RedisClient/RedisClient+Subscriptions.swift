/// Where a wanted subscription is carried.
struct RedisPlacement {
    /// The server it was asked of; nil while it waits for a home (a cluster's slot map).
    var server: RedisServerAddress?
    /// Confirmed on some connection before: its next confirmation means a possible gap.
    var confirmedBefore = false
}

extension RedisClient {
    /// Subscribes, on the server that carries the subscription: a shard channel on the master
    /// of its slot, a classic channel or pattern on one master (a cluster broadcasts those to all
    /// nodes). The confirmation arrives as `.subscriber(.subscribed(...))`.
    public func subscribe(_ subscription: RedisSubscription) {
        guard !isStopped, placements[subscription] == nil else { return }
        placements[subscription] = RedisPlacement()
        placeSubscriptions()
    }

    public func unsubscribe(_ subscription: RedisSubscription) {
        guard let placement = placements.removeValue(forKey: subscription) else { return }
        if let address = placement.server, let node = nodes[address] {
            node.subscriptions.subscriber.unsubscribe(subscription)
            node.subscriptions.changed()
        }
    }

    /// The subscriptions wanted, placed or not.
    public var subscriptions: [RedisSubscription] { Array(placements.keys) }

    /// The server that should carry `subscription` now; nil until a cluster's slot map is known.
    private func home(of subscription: RedisSubscription) -> RedisServerAddress? {
        switch topology {
        case .standalone(let server):
            return server
        case .cluster:
            guard let slotMap else { return nil }
            if subscription.kind == .shard { return slotMap.owner(of: RedisKeySlot.slot(of: subscription.channel)) }
            return slotMap.servingMasters.first
        }
    }

    /// Moves every subscription whose home changed (or that has none yet) to its home server.
    func placeSubscriptions() {
        for (subscription, placement) in placements {
            let target = home(of: subscription)
            guard target != placement.server else { continue }
            var confirmedBefore = placement.confirmedBefore
            if let old = placement.server, let node = nodes[old] {
                confirmedBefore = confirmedBefore || (node.subscriptions.subscriber.wanted[subscription] ?? false)
                node.subscriptions.subscriber.unsubscribe(subscription)
                node.subscriptions.changed()
            }
            placements[subscription] = RedisPlacement(server: target, confirmedBefore: confirmedBefore)
            guard let target else { continue }
            let node = node(target)
            node.subscriptions.subscriber.adopt(subscription, confirmedBefore: confirmedBefore)
            node.subscriberLink.start()
            node.subscriptions.changed()
        }
    }

    func subscriberEvent(_ event: RedisSubscriberEvent, from address: RedisServerAddress) {
        switch event {
        case .dropped(let subscription, let reason) where placements[subscription] != nil:
            // Refused or ended where it was (a slot moved): on a cluster it is placed again
            // where the fresh slot map says; a standalone server's refusal stands.
            let confirmed = nodes[address]?.subscriptions.subscriber.forget(subscription) ?? false
            placements[subscription] = RedisPlacement(server: nil, confirmedBefore: confirmed || placements[subscription]?.confirmedBefore == true)
            if isCluster {
                if case .moved(let slot, let owner)? = RedisRedirect(error: reason) { slotMap?.assign(slot...slot, to: owner) }
                onEvent(.subscriber(event))
                refreshSlotMap()
                placeSubscriptions()
                return
            }
        case .subscribed(let subscription, _):
            placements[subscription]?.confirmedBefore = true
        default:
            break
        }
        onEvent(.subscriber(event))
    }
}
