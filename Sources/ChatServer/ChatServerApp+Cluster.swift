import ChatServerCore
import QuicEngine

/// A node of several (`--cluster`): the core's shared-store actions go to the ``ClusterLink``,
/// and what the link reports comes back to the core as input.
extension ChatServerApp {
    func startCluster(_ options: ClusterOptions, filesFolderMark: String) {
        let link = ClusterLink(options: options, historyLength: self.options.core.historyPerRoom, loop: loop,
                               logger: { [unowned self] level, event, fields in logger.log(level, event, fields) },
                               report: { [unowned self] report in handleClusterReport(report) })
        cluster = link
        link.filesFolderMark = filesFolderMark
        state.peerDigest = { ClusterLink.digest(ofPeer: $0) }
        link.start()
        tickCluster()
        loop.schedule(at: .now() + .seconds(60)) { [weak self] in self?.expireSharedPartials() }
    }

    /// Makes the operator names of this node's configuration accounts on every node
    /// (``ClusterLink/reserveOperatorNames(_:certificates:now:)``): when the node is ready (at start,
    /// again after it lost its place) and after a reload.
    func reserveOperatorNames() {
        cluster?.reserveOperatorNames(options.core.operators, certificates: options.core.operatorCertificates, now: unixMilliseconds())
    }

    /// The core's clock for what waits in it (rooms left behind by devices that moved).
    private func tickCluster() {
        perform(state.tick(now: unixMilliseconds()))
        loop.schedule(at: .now() + .seconds(1)) { [weak self] in self?.tickCluster() }
    }

    /// Interrupted uploads not resumed within the hour, by any node, lose their bytes (PROTOCOL.md
    /// section 9: kept at least an hour); checked every ten minutes.
    func expireSharedPartials() {
        cluster?.expirePartials(olderThan: .milliseconds(UInt64(options.core.partialUploadMilliseconds)))
        loop.schedule(at: .now() + .seconds(600)) { [weak self] in self?.expireSharedPartials() }
    }

    func performClusterAction(_ action: ServerAction) {
        guard let cluster else {
            // Only a core made with a shared log asks for these.
            preconditionFailure("a shared-store action without --cluster: \(action)")
        }
        switch action {
        case .appendRoomEvent(let append): cluster.append(append)
        case .readRoomEvents(let read): cluster.read(read)
        case .followRoom(let room, let after): cluster.follow(room, after: after)
        case .unfollowRoom(let room): cluster.unfollow(room)
        case .readRoomState(let token, let room): cluster.readState(token, room: room)
        case .writePolicy(let change): cluster.writePolicy(change)
        case .publishTyping(let room, let payload): cluster.publishTyping(room: room, payload.bytes)
        case .reserveLoginAttempt(let attempt, let limit, let window):
            cluster.reserveLoginAttempt(attempt, limit: limit, windowMilliseconds: window)
        case .releaseLoginAttempt(let attempt): cluster.releaseLoginAttempt(attempt)
        case .loadFiles(let token, let query): cluster.loadFiles(token, query)
        case .writePartialUploads(let writes, let maxBytes): cluster.writePartials(writes, maxBytes: maxBytes)
        case .storeFileRecord(let token, let file, let maxBytes): cluster.storeFileRecord(token, file, maxBytes: maxBytes)
        case .loadAccounts(let token, let names): cluster.loadAccounts(token, names: names)
        case .writeAccount(let token, let write): cluster.writeAccount(token, write)
        case .claimHello(let token, let peer, let client, let account, let candidates, let address):
            cluster.claimHello(token, peer: peer, client: client, account: account, candidates: candidates, address: address)
        case .claimNick(let token, let candidates, let peer): cluster.claimNick(token, candidates: candidates, peer: peer)
        case .recordPeer(let peer, let client, let nick, let account, let address):
            cluster.recordPeer(peer, client: client, nick: nick, account: account, address: address)
        case .releaseIdentity(let peer, let client, let nick, let andPeer):
            cluster.releaseIdentity(peer: peer, client: client, nick: nick, andPeer: andPeer)
        case .lookUpNick(let token, let nick): cluster.lookUpNick(token, nick: nick)
        case .lookUpDevice(let token, let nick): cluster.lookUpDevice(token, nick: nick)
        case .lookUpDirectReceipt(let token, let peer, let id): cluster.lookUpDirectReceipt(token, peer: peer, id: id)
        case .storeDirectReceipt(let peer, let id, let ts): cluster.storeDirectReceipt(peer: peer, id: id, ts: ts)
        case .sendToNode(let token, let node, let message): cluster.send(message, to: node, token: token)
        case .publishMember(let member, let rooms): cluster.publishMember(member, rooms: rooms)
        default: break
        }
    }

    func handleClusterReport(_ report: ClusterLink.ClusterReport) {
        let now = unixMilliseconds()
        switch report {
        case .appended(let token, let outcome):
            perform(state.roomEventAppended(token, outcome, now: now))
        case .read(let token, let events):
            perform(state.roomEventsRead(token, events, now: now))
        case .delivered(let event):
            let deliveredBefore = metrics.deliveredTotal
            perform(state.roomEventDelivered(event, now: now))
            metrics.noteDeliveries(since: deliveredBefore, receivedAt: MonotonicTime.now())
        case .roomState(let token, let seq, let members, let settings):
            perform(state.roomStateRead(token, seq: seq, members: members, settings: settings, now: now))
        case .serverBans(let bans):
            perform(state.serverBansChanged(bans, now: now))
        case .accountsLoaded(let token, let accounts):
            perform(state.accountsLoaded(token, accounts, now: now))
        case .accountWritten(let token, let outcome, let write):
            perform(state.accountWritten(token, outcome, write, now: now))
        case .accountChanged(let name):
            perform(state.accountChanged(name))
        case .loginAttemptReserved(let attempt, let answer):
            perform(state.loginAttemptReserved(attempt, answer, now: now))
        case .accountChangesMissed:
            state.accountChangesMissed()
        case .filesLoaded(let token, let loaded):
            perform(state.filesLoaded(token, loaded, now: now))
        case .partialsExpired(let keys):
            for key in keys { fileWorker.discard(.partial(key)) }
        case .contentEvicted(let unused):
            perform(state.contentEvicted(unused))
        case .fileRecordStored(let token, let outcome):
            perform(state.fileRecordStored(token, outcome, now: now))
        case .typing(let room, let payload):
            perform(state.remoteTyping(room: room, payload: payload, now: now))
        case .helloClaimed(let token, let outcome):
            perform(state.helloClaimed(token, outcome, now: now))
        case .nickClaimed(let token, let outcome):
            perform(state.nickClaimed(token, outcome, now: now))
        case .nickLookedUp(let token, let outcome):
            perform(state.nickLookedUp(token, outcome, now: now))
        case .deviceLookedUp(let token, let outcome):
            perform(state.deviceLookedUp(token, outcome, now: now))
        case .directReceiptLookedUp(let token, let outcome):
            perform(state.directReceiptLookedUp(token, outcome, now: now))
        case .nodeMessageSent(let token, let outcome):
            perform(state.nodeMessageSent(token, outcome, now: now))
        case .nodeMessage(let message):
            perform(state.nodeMessageDelivered(message, now: now))
        case .replaceRequested(let client, let device):
            // Only while that connection is still the device the sender named.
            guard let peer = state.peer(of: client), Array(ClusterLink.digest(ofPeer: peer).utf8) == device else { return }
            perform(state.nodeMessageDelivered(.replace(client: client, peer: peer), now: now))
        case .remoteStatus(let member):
            perform(state.remoteStatusChanged(nick: member.nick, account: member.account, status: member.status, now: now))
        case .reap(let node, let room, let members):
            perform(state.reapLostMembers(of: node, in: room, members: members, now: now))
        case .ready(let ready):
            state.clusterReady(ready)
            // Each time the node (re)joins: a start while Redis was away reserves them too.
            if ready { reserveOperatorNames() }
        case .membershipLost:
            perform(state.clusterMembershipLost(now: now))
        case .foreignFilesFolder(let theirs):
            let folder = fileWorker.directory.path
            fail("the --files folder \(folder) is not the one the other nodes use: it is marked \(cluster?.filesFolderMark ?? "") in "
                 + "\(folder)/\(FileDirectory.markName), theirs \(theirs) (\(ClusterLink.folderKey) in Redis). Give every node the same "
                 + "shared folder; a node on a folder of its own would announce files the others cannot serve")
        case .nameTaken(let why):
            stopServing(because: why)
        }
    }

    /// Another instance has this node's name (issue 26, item 1): every connection is closed with
    /// SHUTDOWN (the clients move to another node), nothing is stored or released (the name's
    /// leases and members are the other instance's now), and the process exits with status 1.
    func stopServing(because why: String) {
        guard !shuttingDown else { return }
        shuttingDown = true
        exitStatus = 1
        withdrawAdvertisement()
        perform(state.clusterMembershipLost(now: unixMilliseconds(), why: why))
        // The closes leave with the next flush; then the process ends.
        loop.schedule(at: .now() + .milliseconds(500)) { [weak self] in
            self?.cluster?.stop()
            self?.loop.stop()
        }
    }
}
