import ChatServerCore
import EventRuntime
import RedisClient

/// Joining the directory (``NodeDirectory``): once Redis answers and keeps its keys, the node
/// joins, clears what an earlier run under the same name left (its users' memberships and
/// leases), reads the server bans, prepares the files store, and only then takes hellos. A step
/// that fails tries the whole join again a heartbeat interval later.
extension ClusterNode {
    mutating func joinDirectory() {
        guard !joining, !isReady, !nameLost else { return }
        joining = true
        // Not on a Redis that may evict keys: the node would hand out seqs twice.
        checkEviction(forJoin: true)
    }

    /// The eviction check before a join answered.
    mutating func evictionChecked(safe: Bool) {
        guard safe else {
            joining = false
            return schedule(.join)
        }
        send(configuration.directory.join, key: NodeDirectory.directoryKey, for: .join)
    }

    mutating func joinAnswered(_ result: Result<RedisReply, RoomStoreError>) {
        let beat = result.flatMap(NodeDirectoryCommands.heartbeat)
        if case .success(.taken(let deadline, let holder)) = beat {
            joining = false
            return nameHeld(until: deadline, by: holder)
        }
        guard case .success = beat else {
            joining = false
            return schedule(.join)
        }
        heldName = nil
        // An earlier run of this node may have left users in rooms and leases behind.
        reap(node, forJoin: true)
    }

    /// The reap of this node's earlier run ended.
    mutating func joinReaped(done: Bool) {
        joining = false
        guard done else { return schedule(.join) }
        loadServerBans(forJoin: true)
    }

    /// Every server ban, for the core (while joining, and when another node changed them).
    mutating func loadServerBans(forJoin: Bool) {
        send(RedisCommand("HGETALL", ClusterKeys.serverBans), key: ClusterKeys.serverBans, for: .serverBans(forJoin: forJoin))
    }

    mutating func serverBansAnswered(_ result: Result<RedisReply, RoomStoreError>, forJoin: Bool) {
        guard case .success(let reply) = result, let bans = PolicyFormat.serverBans(reply) else {
            if forJoin { schedule(.join) }
            return
        }
        report(.serverBans(bans))
        if forJoin { prepareFiles() }
    }

    /// Before this node takes hellos: a store written before parties gets them, and its `--files`
    /// folder must be the one the other nodes use (a node on a folder of its own would announce
    /// files it cannot serve, and serve none of theirs).
    mutating func prepareFiles() {
        send(FileStoreScripts.buildParties, key: FileStoreScripts.keys[0], for: .buildParties)
    }

    mutating func partiesBuilt(_ result: Result<RedisReply, RoomStoreError>) {
        guard case .success = result else { return schedule(.join) }
        send(RedisCommand("EVAL", FileStoreScripts.claimFolderScript, "1", ClusterKeys.filesFolder, configuration.filesFolderMark),
             key: ClusterKeys.filesFolder, for: .claimFolder)
    }

    mutating func folderClaimed(_ result: Result<RedisReply, RoomStoreError>) {
        guard case .success(let reply) = result, let known = reply.text else { return schedule(.join) }
        guard known == configuration.filesFolderMark else { return report(.foreignFilesFolder(known)) }
        isReady = true
        figures.lastRenewal = now
        emit(.renewing(true))
        log(.info, "cluster node ready", ["node": node])
        report(.ready)
    }

    /// Another instance holds this node's name (the join answered `taken`). A deadline that
    /// moved between two looks is a running instance: this one must not serve under its name, and
    /// stops. One that does not move (a crash, or a planned stop handing its clients over) is
    /// waited out, as is a reaper's claim of the name's earlier run.
    mutating func nameHeld(until deadline: Int64, by holder: String) {
        let live = !holder.hasPrefix(NodeDirectory.stoppingPrefix) && holder != "reaping"
        if live, let seen = heldName, seen.holder == holder, deadline > seen.deadline {
            return loseName("another running instance holds this node's name")
        }
        if heldName?.holder != holder {
            log(.warning, "node name held; waiting", ["node": node, "by": live ? "another instance" : holder == "reaping" ? "a reaper" : "a stopping instance",
                                                     "for_ms": String(max(0, deadline - (heldName?.deadline ?? deadline)))])
        }
        heldName = (deadline, holder)
        schedule(.join)
    }

    /// This node's name is another instance's: it stops serving, loudly (the app closes every
    /// connection and exits with status 1). Nothing of the name's state is touched: it is theirs.
    mutating func loseName(_ why: String) {
        guard !nameLost else { return }
        nameLost = true
        becameUnready()
        log(.error, "node name taken", ["node": node, "error": why])
        report(.nameTaken(why))
    }

    /// The node is out of the directory (declared lost, lost its name, its store lost its data):
    /// no renewals until it joins again.
    mutating func becameUnready() {
        isReady = false
        emit(.renewing(false))
    }

    /// A planned stop (SIGTERM): no more renewals or scans, and the directory is told the node is
    /// stopping. Its clients have the node timeout to reconnect to other nodes, quietly (the same
    /// device: no `left`, no `joined`); whatever is left of them then is reaped by the node that
    /// claims it, which logs `node stopped` rather than `node lost`. ``Action/left`` once the
    /// directory answered (or could not be reached), at once when there is nothing to tell it.
    public mutating func leave() -> [Action] {
        guard isReady, !leaving, !nameLost else {
            emit(.left)
            return flush()
        }
        leaving = true
        becameUnready()
        send(configuration.directory.leave(after: configuration.nodeTimeout), key: NodeDirectory.directoryKey, for: .leave)
        return flush()
    }

    mutating func leaveAnswered(_ result: Result<RedisReply, RoomStoreError>) {
        if case .failure(let error) = result {
            log(.warning, "could not tell the directory this node stops", ["error": "\(error)"])
        }
        emit(.left)
    }

    /// A renewal's answer, from the heartbeat thread.
    public mutating func renewed(_ result: Result<NodeDirectory.Heartbeat, RoomStoreError>, now: MonotonicTime) -> [Action] {
        self.now = now
        guard isReady, !leaving, !nameLost else { return flush() }
        guard case .success(let beat) = result else {
            figures.renewFailures += 1
            return flush()
        }
        switch beat {
        case .reaped:
            log(.error, "this node was declared lost", ["node": node])
            becameUnready()
            report(.membershipLost)
            joinDirectory()
        case .taken:
            loseName("another instance took this node's name")
        case .alive:
            figures.lastRenewal = now
        }
        return flush()
    }

    /// Every heartbeat interval: the epoch (every time: a Redis emptied in place, FLUSHALL, shows
    /// no reconnect); once ready, the eviction policy, the nodes to reap and the other nodes.
    mutating func heartbeat() {
        guard !nameLost, !leaving else { return }
        schedule(.heartbeat)
        verifyStore(force: true)
        guard isReady else { return }
        // A running node is told when a Redis it stores in came to evict keys (CONFIG SET).
        checkEviction(forJoin: false)
        send(configuration.directory.claim, key: NodeDirectory.directoryKey, for: .claim)
        // After the claim (the same connection, in order): the nodes whose place has not run out,
        // those handing their clients over after a planned stop included.
        send(configuration.directory.members, key: NodeDirectory.directoryKey, for: .members)
    }

    mutating func membersAnswered(_ result: Result<RedisReply, RoomStoreError>) {
        guard case .success(let members) = result.flatMap(NodeDirectoryCommands.members) else { return }
        figures.peerNodes = members.keys.count { $0 != node }
    }
}
