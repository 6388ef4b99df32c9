import ChatProtocol
@testable import ChatServerCore

/// Several nodes (``ChatServerState`` with a shared room log) and an in-memory stand-in for the
/// log they share: it assigns seqs, keeps events, answers appends and reads, and delivers each
/// event to every node following its room. Nothing happens until the test steps the world, so a
/// test decides the order in which replies and deliveries reach the nodes (Redis answers an
/// append on one connection and publishes on another: either may arrive first).
final class SharedLogWorld {
    /// One node and what its clients received.
    final class Node {
        let name: String
        let state: ChatServerState
        /// Rooms followed, with the last seq handed to the node.
        var follows: [String: Int64] = [:]
        /// Every action the node's core returned that is not a room-log action, in order.
        var actions: [ServerAction] = []

        init(name: String, state: ChatServerState) {
            self.name = name
            self.state = state
        }

        var outbox: Outbox { Outbox(actions) }
        func chat(to client: ClientID) -> [ChatMessage] { outbox.chat(to: client) }
    }

    struct Entry {
        let seq: Int64
        let kind: StoredEventKind
        let node: String
        let origin: ClientID?
        /// The token of the append that stored it (its node's).
        var append: UInt64? = nil
        let payload: [UInt8]
        var memberStatus: PresenceStatus?
    }

    enum Step {
        case reply(node: String, token: UInt64, RoomAppendOutcome)
        case read(node: String, token: UInt64, [Entry]?)
        case deliver(node: String, room: String, Entry)
        case members(node: String, token: UInt64, seq: Int64, [(node: String, record: MemberRecord)]?, RoomSettings?)
        case serverBans(node: String, [Ban])
        case accounts(node: String, token: UInt64, [String: LoadedAccount?])
        case accountWritten(node: String, token: UInt64, AccountWriteOutcome, AccountWrite)
        case accountChanged(node: String, String)
        case password(node: String, ticket: UInt64, PasswordOutcome)
        case typing(node: String, room: String, [UInt8])
        /// The store counts a password attempt (when the step runs: the order the store takes them in).
        case reserveAttempt(node: String, LoginAttempt, limit: Int, window: Int64)
        case helloClaimed(node: String, token: UInt64, HelloClaim)
        case nickClaimed(node: String, token: UInt64, String?)
        case lookedUp(node: String, token: UInt64, NickHolder?)
        case deviceLookedUp(node: String, token: UInt64, DeviceHolder?)
        case receiptLookedUp(node: String, token: UInt64, Int64?)
        case inbox(node: String, NodeMessage)
        case sent(node: String, token: UInt64)
        case status(node: String, MemberRecord)
        case filesLoaded(node: String, token: UInt64, LoadedFiles?)
        case fileRecordStored(node: String, token: UInt64, FileRecordOutcome)

        var isDelivery: Bool { if case .deliver = self { true } else { false } }
    }

    private(set) var nodes: [String: Node] = [:]
    /// Each room's events, in seq order (never trimmed here).
    private(set) var log: [String: [Entry]] = [:]
    /// Each room's members hash: nick key → the record and the node whose client it is.
    private(set) var members: [String: [String: (node: String, record: MemberRecord)]] = [:]
    /// Peer leases (peer → node, client, nick) and nick leases (nick key → node, peer).
    private(set) var peerLeases: [String: (node: String, client: ClientID, nick: String, account: String?, address: String?)] = [:]
    private(set) var nickLeases: [String: (node: String, peer: String)] = [:]
    /// `dm` receipts: "PEER ID" → its ts.
    private(set) var directReceipts: [String: Int64] = [:]
    /// The shared store's file records and interrupted uploads (``node(_:configuration:files:)``).
    private(set) var fileStore: any FileCatalog = InMemoryFileCatalog(history: InMemoryHistoryStore())
    /// Each room's settings, and the server bans.
    private(set) var settings: [String: RoomSettings] = [:]
    private(set) var serverBans: [Ban] = []
    /// Accounts by key.
    private(set) var accounts: [String: LoadedAccount] = [:]
    private var dedupe: [String: Int64] = [:]
    /// What the nodes have yet to hear, in the order they will.
    private(set) var queue: [Step] = []
    /// Deliveries are queued before the append's reply (the publish overtakes the reply).
    var publishBeforeReply = false
    /// Appends fail (nothing stored) while true; `storedButLost` stores them and fails the reply.
    var unavailable = false
    var storedButLost = false
    /// Reads fail (nil) while true.
    var readsFail = false
    var now: Int64 = 1_764_480_000_000
    private var messageCounter: UInt64 = 0

    @discardableResult
    /// `files`: the file records the shared store keeps (one catalog for every node), read and
    /// written through the nodes' file actions.
    func node(_ name: String, configuration: ChatServerConfiguration = ChatServerConfiguration(), files: (any FileCatalog)? = nil)
        throws -> Node {
        var configuration = configuration
        configuration.nodeName = name
        if let files { fileStore = files }
        let node = Node(name: name, state: try ChatServerState(configuration: configuration, history: InMemoryHistoryStore(),
                                                               random: SystemRandomNumberGenerator()))
        node.state.clusterReady(true)
        nodes[name] = node
        return node
    }

    // MARK: Clients

    @discardableResult
    func connect(_ client: ClientID, on node: String, address: String = "") -> Outbox {
        take(nodes[node]!.state.connected(client, legacy: false, datagrams: true, address: address, now: now), on: node)
    }

    /// A message on a client's stream; returns what the call itself produced.
    @discardableResult
    func send(_ message: ChatMessage, from client: ClientID, on node: String, stream: ChatStreamKind = .chat) -> Outbox {
        take(nodes[node]!.state.received(.message(message), from: client, on: stream, now: now), on: node)
    }

    /// Connects and says hello in `room` (with the peer id of `client`, or of `device`), then
    /// settles the world.
    func login(_ client: ClientID, nick: String, room: String = "lobby", on node: String, since: Int64? = nil, address: String = "",
               device: UInt64? = nil) {
        connect(client, on: node, address: address)
        send(.join(nick: nick, peer: Self.peer(device ?? client), room: room, since: since), from: client, on: node)
        send(.status("online"), from: client, on: node, stream: .presence)
        settle()
    }

    @discardableResult
    func say(_ text: String, from client: ClientID, on node: String, in room: String = "lobby", id: String? = nil) -> Outbox {
        send(.msg(room: room, text: text, id: id ?? nextMessageID()), from: client, on: node)
    }

    @discardableResult
    func disconnect(_ client: ClientID, on node: String) -> Outbox {
        take(nodes[node]!.state.disconnected(client, reason: "quit", now: now), on: node)
    }

    static func peer(_ number: UInt64) -> String { Harness.peer(number) }

    static let graceMilliseconds = ChatServerState.takeoverGraceMilliseconds

    func nextMessageID() -> String {
        messageCounter += 1
        return Harness.peer(0xBEE0_0000_0000 + messageCounter)
    }

    // MARK: Stepping

    /// Hands the next queued step to its node; false when nothing was queued.
    @discardableResult
    func step(where pick: (Step) -> Bool = { _ in true }) -> Bool {
        guard let index = queue.firstIndex(where: pick) else { return false }
        let step = queue.remove(at: index)
        switch step {
        case .reply(let name, let token, let outcome):
            take(nodes[name]!.state.roomEventAppended(token, outcome, now: now), on: name)
        case .read(let name, let token, let entries):
            let node = nodes[name]!
            take(node.state.roomEventsRead(token, entries.map { $0.map { event($0, room: readRooms[token] ?? "", for: node) } },
                                           now: now), on: name)
        case .members(let name, let token, let seq, let records, let settings):
            let node = nodes[name]!
            let seen = records?.map { held in
                MemberRecord(nick: held.record.nick, account: held.record.account, status: held.record.status,
                             onThisNode: held.node == name)
            }
            take(node.state.roomStateRead(token, seq: seq, members: seen, settings: settings, now: now), on: name)
        case .serverBans(let name, let bans):
            take(nodes[name]!.state.serverBansChanged(bans, now: now), on: name)
        case .accounts(let name, let token, let loaded):
            take(nodes[name]!.state.accountsLoaded(token, unavailable ? nil : loaded, now: now), on: name)
        case .accountWritten(let name, let token, let outcome, let write):
            take(nodes[name]!.state.accountWritten(token, outcome, write, now: now), on: name)
        case .accountChanged(let name, let account):
            take(nodes[name]!.state.accountChanged(account), on: name)
        case .typing(let name, let room, let payload):
            take(nodes[name]!.state.remoteTyping(room: room, payload: payload, now: now), on: name)
        case .reserveAttempt(let name, let attempt, let limit, let window):
            take(nodes[name]!.state.loginAttemptReserved(attempt, reserve(attempt, from: name, limit: limit, window: window), now: now),
                 on: name)
        case .password(let name, let ticket, let outcome):
            take(nodes[name]!.state.passwordTaskFinished(ticket, outcome, now: now), on: name)
        case .helloClaimed(let name, let token, let claim):
            take(nodes[name]!.state.helloClaimed(token, unavailable ? .failed("down") : .answered(claim), now: now), on: name)
        case .nickClaimed(let name, let token, let nick):
            take(nodes[name]!.state.nickClaimed(token, unavailable ? .failed("down") : .answered(nick), now: now), on: name)
        case .lookedUp(let name, let token, let holder):
            take(nodes[name]!.state.nickLookedUp(token, unavailable ? .failed("down") : .answered(holder), now: now), on: name)
        case .deviceLookedUp(let name, let token, let holder):
            take(nodes[name]!.state.deviceLookedUp(token, unavailable ? .failed("down") : .answered(holder), now: now), on: name)
        case .receiptLookedUp(let name, let token, let ts):
            take(nodes[name]!.state.directReceiptLookedUp(token, unavailable ? .failed("down") : .answered(ts.map { MessageReceipt(peer: "", id: "", ts: $0) }), now: now), on: name)
        case .inbox(let name, let message):
            take(nodes[name]!.state.nodeMessageDelivered(message, now: now), on: name)
        case .sent(let name, let token):
            take(nodes[name]!.state.nodeMessageSent(token, .answered(true), now: now), on: name)
        case .status(let name, let record):
            take(nodes[name]!.state.remoteStatusChanged(nick: record.nick, account: record.account, status: record.status, now: now),
                 on: name)
        case .filesLoaded(let name, let token, let loaded):
            take(nodes[name]!.state.filesLoaded(token, unavailable ? nil : loaded, now: now), on: name)
        case .fileRecordStored(let name, let token, let outcome):
            take(nodes[name]!.state.fileRecordStored(token, outcome, now: now), on: name)
        case .deliver(let name, let room, let entry):
            let node = nodes[name]!
            guard let delivered = node.follows[room], entry.seq > delivered else { break }
            node.follows[room] = entry.seq
            take(node.state.roomEventDelivered(event(entry, room: room, for: node), now: now), on: name)
        }
        return true
    }

    /// Steps until nothing is left (or only what `pick` does not take).
    func settle(where pick: (Step) -> Bool = { _ in true }) {
        var steps = 0
        while step(where: pick) {
            steps += 1
            precondition(steps < 100_000, "the world does not settle")
        }
    }

    private var readRooms: [UInt64: String] = [:]

    // MARK: Password attempts

    /// Counted password attempts per key, as the store keeps them (member, time).
    private(set) var attempts: [String: [(member: String, time: Int64)]] = [:]
    /// The store answers `unavailable` to reservations while true.
    var attemptsUnavailable = false

    private static func attemptKeys(_ attempt: LoginAttempt) -> [String] {
        if attempt.kind == .registration { return attempt.address.isEmpty ? [] : ["registrations:" + attempt.address] }
        return (attempt.account.map { ["account:" + $0] } ?? []) + (attempt.address.isEmpty ? [] : ["address:" + attempt.address])
    }

    /// What the store's script does: counts the attempt in every key unless one is full.
    private func reserve(_ attempt: LoginAttempt, from node: String, limit: Int, window: Int64) -> LoginAttemptReservation {
        if attemptsUnavailable { return .unavailable }
        let keys = Self.attemptKeys(attempt)
        for key in keys {
            attempts[key]?.removeAll { $0.time <= now - window }
            if attempts[key, default: []].count >= limit { return .locked }
        }
        for key in keys { attempts[key, default: []].append(("\(node):\(attempt.ticket)", now)) }
        return .reserved
    }

    private func event(_ entry: Entry, room: String, for node: Node) -> SharedRoomEvent {
        SharedRoomEvent(room: room, seq: entry.seq, kind: entry.kind, origin: entry.node == node.name ? entry.origin : nil,
                        append: entry.node == node.name ? entry.append : nil, payload: entry.payload, memberStatus: entry.memberStatus)
    }

    /// Actions a test got from the node's core directly (an operator command): as if returned.
    func absorb(_ actions: [ServerAction], on name: String) { take(actions, on: name) }

    /// Keeps a node's non-log actions and carries out its room-log actions.
    @discardableResult
    func take(_ actions: [ServerAction], on name: String) -> Outbox {
        let node = nodes[name]!
        var kept: [ServerAction] = []
        for action in actions {
            switch action {
            case .appendRoomEvent(let append): perform(append, from: node)
            case .readRoomEvents(let read):
                readRooms[read.token] = read.room
                let events = (log[read.room] ?? []).filter { ($0.seq > (read.after ?? Int64.min)) && $0.seq < (read.before ?? Int64.max) }
                let chosen = read.newest ? Array(events.suffix(read.limit)) : Array(events.prefix(read.limit))
                queue.append(.read(node: name, token: read.token, readsFail ? nil : chosen))
            case .followRoom(let room, let after):
                node.follows[room] = after
                for entry in log[room] ?? [] where entry.seq > after {
                    queue.append(.deliver(node: name, room: room, entry))
                }
            case .unfollowRoom(let room):
                node.follows[room] = nil
            case .claimHello(let token, let peer, let client, let account, let candidates, let address):
                let previous = peerLeases[peer]
                let holder = previous.map {
                    PeerHolder(node: $0.node, client: $0.client, nick: $0.nick, account: $0.account, isThisNode: $0.node == name)
                }
                // As the store's script: a session logged in to another account keeps its device's
                // lease; else the nick the device held through another node first, then the candidates.
                guard previous?.account == nil || previous?.account == account else {
                    queue.append(.helloClaimed(node: name, token: token, HelloClaim(deviceTaken: false, previous: holder, nick: nil)))
                    break
                }
                var ordered = candidates
                if let previous, previous.node != name, !previous.nick.isEmpty { ordered.insert(previous.nick, at: 0) }
                let taken = ordered.first { candidate in
                    guard let held = nickLeases[ChatValidation.nickKey(candidate)] else { return true }
                    return held.peer == peer
                }
                if !unavailable {
                    if let taken { nickLeases[ChatValidation.nickKey(taken)] = (name, peer) }
                    peerLeases[peer] = (name, client, taken ?? "", taken == nil ? nil : account, taken == nil ? nil : address)
                }
                queue.append(.helloClaimed(node: name, token: token, HelloClaim(deviceTaken: true, previous: holder, nick: taken)))
            case .claimNick(let token, let candidates, let peer):
                let taken = candidates.first { candidate in
                    guard let held = nickLeases[ChatValidation.nickKey(candidate)] else { return true }
                    return held.peer == peer
                }
                if let taken, !unavailable { nickLeases[ChatValidation.nickKey(taken)] = (name, peer) }
                queue.append(.nickClaimed(node: name, token: token, taken))
            case .recordPeer(let peer, let client, let nick, let account, let address):
                peerLeases[peer] = (name, client, nick, account, address)
            case .releaseIdentity(let peer, _, let nick, let andPeer):
                if let held = nickLeases[ChatValidation.nickKey(nick)], held.node == name, held.peer == peer {
                    nickLeases[ChatValidation.nickKey(nick)] = nil
                }
                if andPeer, peerLeases[peer]?.node == name { peerLeases[peer] = nil }
            case .lookUpNick(let token, let nick):
                queue.append(.lookedUp(node: name, token: token, nickLeases[ChatValidation.nickKey(nick)].map {
                    NickHolder(node: $0.node, isThisNode: $0.node == name, device: $0.peer)
                }))
            case .lookUpDevice(let token, let nick):
                let holder = nickLeases[ChatValidation.nickKey(nick)].map { held in
                    let lease = peerLeases[held.peer]
                    return DeviceHolder(node: held.node, isThisNode: held.node == name, device: held.peer, account: lease?.account,
                                        address: lease?.address)
                }
                queue.append(.deviceLookedUp(node: name, token: token, holder))
            case .lookUpDirectReceipt(let token, let peer, let id):
                queue.append(.receiptLookedUp(node: name, token: token, directReceipts["\(peer) \(id)"]))
            case .storeDirectReceipt(let peer, let id, let ts):
                if !unavailable { directReceipts["\(peer) \(id)"] = ts }
            case .sendToNode(let token, let target, let message):
                queue.append(.inbox(node: target, message))
                if let token { queue.append(.sent(node: name, token: token)) }
            case .publishMember(let record, let rooms):
                for room in rooms where members[room]?[record.key] != nil {
                    members[room]?[record.key]?.record.status = record.status
                    members[room]?[record.key]?.record.account = record.account
                }
                for other in nodes.keys.sorted() where other != name { queue.append(.status(node: other, record)) }
            case .readRoomState(let token, let room):
                let records = readsFail ? nil : Array((members[room] ?? [:]).values)
                queue.append(.members(node: name, token: token, seq: Int64(log[room]?.count ?? 0), records,
                                      readsFail ? nil : settings[room] ?? RoomSettings()))
            case .publishTyping(let room, let payload):
                for other in nodes.values.sorted(by: { $0.name < $1.name }) where other.name != name && other.follows[room] != nil {
                    queue.append(.typing(node: other.name, room: room, payload.bytes))
                }
            case .reserveLoginAttempt(let attempt, let limit, let window):
                queue.append(.reserveAttempt(node: name, attempt, limit: limit, window: window))
            case .releaseLoginAttempt(let attempt):
                for key in Self.attemptKeys(attempt) { attempts[key]?.removeAll { $0.member == "\(name):\(attempt.ticket)" } }
            case .loadAccounts(let token, let names):
                var loaded: [String: LoadedAccount?] = [:]
                for name in names { loaded[name] = .some(accounts[ChatValidation.nickKey(name)]) }
                queue.append(.accounts(node: name, token: token, loaded))
            case .writeAccount(let token, let write):
                let key = ChatValidation.nickKey(write.account)
                var outcome = AccountWriteOutcome.written
                switch write {
                case .create(let account, let certificate):
                    if accounts[key] != nil {
                        outcome = .exists
                    } else {
                        accounts[key] = LoadedAccount(account: account, certificates: certificate.map { [$0] } ?? [])
                    }
                case .setPasswordHash(_, let hash): accounts[key]?.account.passwordHash = hash
                case .bind(_, let certificate): accounts[key]?.certificates.append(certificate)
                case .unbind(_, let certificate): accounts[key]?.certificates.removeAll { $0 == certificate }
                case .retire:
                    accounts[key]?.account.passwordHash = nil
                    accounts[key]?.certificates = []
                }
                queue.append(.accountWritten(node: name, token: token, outcome, write))
                for other in nodes.keys.sorted() where other != name { queue.append(.accountChanged(node: other, key)) }
            case .password(let task):
                // A stand-in for argon2id: the hash of P is "H:P".
                switch task.work {
                case .hash: queue.append(.password(node: name, ticket: task.ticket, .hashed("H:" + task.password)))
                case .verify(let stored): queue.append(.password(node: name, ticket: task.ticket, .verified(stored == "H:" + task.password)))
                case .decoy: queue.append(.password(node: name, ticket: task.ticket, .verified(false)))
                }
            case .writePolicy(let change):
                if let room = change.room {
                    settings[room, default: RoomSettings()].apply(change)
                } else {
                    var list = BanList(serverBans)
                    switch change {
                    case .banAdded(_, let ban): list.insert(ban)
                    case .banRemoved(_, let label): list.remove(label: label)
                    default: break
                    }
                    serverBans = Array(list.byKey.values)
                    for other in nodes.keys.sorted() where other != name { queue.append(.serverBans(node: other, serverBans)) }
                }
            case .loadFiles(let token, let query):
                queue.append(.filesLoaded(node: name, token: token, try? loadFiles(query)))
            case .storeFileRecord(let token, let file, _):
                queue.append(.fileRecordStored(node: name, token: token, storeFileRecord(file)))
            case .writePartialUploads(let writes, _):
                for write in writes {
                    switch write {
                    case .save(let partial): try? fileStore.savePartial(partial)
                    case .remove(let key): try? fileStore.removePartial(key: key)
                    }
                }
            default:
                kept.append(action)
            }
        }
        node.actions += kept
        return Outbox(kept)
    }

    /// The records a header is checked against, as the shared store reads them (no eviction here).
    private func loadFiles(_ query: FileQuery) throws -> LoadedFiles {
        try fileStore.load(query)
    }

    /// A finished upload's record; the same upload stored before answers its record.
    private func storeFileRecord(_ file: StoredFile) -> FileRecordOutcome {
        if let earlier = try? fileStore.file(uploadedBy: file.uploaderPeer, id: file.uploadID) { return .stored(earlier, unusedContent: []) }
        do {
            try fileStore.storeFile(file, event: nil, retainPerRoom: 1_000)
            return .stored(file, unusedContent: [])
        } catch {
            return .failed("\(error)")
        }
    }

    private func perform(_ append: RoomEventAppend, from node: Node) {
        if unavailable {
            // Redis not reachable: nothing was sent, nothing stored.
            queue.append(.reply(node: node.name, token: append.token, .refused("unavailable")))
            return
        }
        if let key = append.dedupe.map({ "\(append.room)/\($0)" }), let seq = dedupe[key] {
            queue.append(.reply(node: node.name, token: append.token, .stored(seq: seq, duplicate: true)))
            return
        }
        // A claim's owner is set only while the room has none (the script's `setnx`).
        if case .owner? = append.policy, let owner = settings[append.room]?.owner {
            queue.append(.reply(node: node.name, token: append.token, .settingTaken(owner)))
            return
        }
        switch append.membership {
        case .add(let record)?:
            if let held = members[append.room]?[record.key], held.record.peer == record.peer, record.peer != nil {
                // The same device through another node: the record moves, nothing is stored.
                members[append.room]?[record.key] = (node.name, record)
                queue.append(.reply(node: node.name, token: append.token, .stored(seq: Int64(log[append.room]?.count ?? 0),
                                                                                  duplicate: true)))
                return
            }
            members[append.room, default: [:]][record.key] = (node.name, record)
        case .removeIfHeld(let keys, let holder)?:
            let held = keys.filter { key in
                guard let member = members[append.room]?[key] else { return false }
                switch holder {
                case .node(let lost): return member.node == lost
                case .thisNode(let peer): return member.node == node.name && member.record.peer == peer
                }
            }
            guard !held.isEmpty else {
                queue.append(.reply(node: node.name, token: append.token, .stored(seq: 0, duplicate: false)))
                return
            }
            for key in held { members[append.room]?[key] = nil }
        case .remove(let keys)?: for key in keys { members[append.room]?[key] = nil }
        case .rename(let fromKey, let record)?:
            members[append.room]?[fromKey] = nil
            members[append.room, default: [:]][record.key] = (node.name, record)
        case nil: break
        }
        if let change = append.policy { settings[append.room, default: RoomSettings()].apply(change) }
        let seq = Int64(log[append.room]?.count ?? 0) + 1
        let entry = Entry(seq: seq, kind: append.kind, node: node.name, origin: append.origin, append: append.token,
                          payload: append.beforeSeq + Array(String(seq).utf8) + append.afterSeq, memberStatus: append.memberStatus)
        log[append.room, default: []].append(entry)
        if let key = append.dedupe.map({ "\(append.room)/\($0)" }) { dedupe[key] = seq }
        let reply = Step.reply(node: node.name, token: append.token,
                               storedButLost ? .failed("connection lost") : .stored(seq: seq, duplicate: false))
        var deliveries: [Step] = []
        for other in nodes.values.sorted(by: { $0.name < $1.name }) where other.follows[append.room] != nil {
            deliveries.append(.deliver(node: other.name, room: append.room, entry))
        }
        queue += publishBeforeReply ? deliveries + [reply] : [reply] + deliveries
    }
}
