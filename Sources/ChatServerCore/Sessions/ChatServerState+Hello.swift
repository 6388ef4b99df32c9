import ChatProtocol

/// A new connection and its first valid `join`, the hello (PROTOCOL.md section 3), with the
/// login of section 7: a nick that is an account is the account's when the connection's
/// certificate is bound to it or the join carries its password; otherwise the connection is a
/// guest and gets `nick_2` as if the nick were taken.
extension ChatServerState {
    /// A QUIC connection completed its handshake. `legacy` is ALPN `chat`; `datagrams` is
    /// whether the peer accepts DATAGRAM frames (advertised a non-zero size). `address` is the
    /// client's address as limits count it (IPv4, or the IPv6 /64); `addressIsShared` when it is
    /// exempt from the per-address limits (`--exempt`, loopback by default): many clients share
    /// it, so neither a guest ban nor the per-address password limit holds it. `certificate` is
    /// the SHA-256 fingerprint of the client certificate it presented.
    public func connected(_ client: ClientID, legacy: Bool, datagrams: Bool, address: String = "", addressIsShared: Bool = false,
                          certificate: String? = nil, now: Int64) -> [ServerAction] {
        guard clients[client] == nil else {
            return [.log(.warning, "connection id reused; ignored", ["client": String(client)])]
        }
        let session = ClientSession(
            id: client, isLegacy: legacy, acceptsDatagrams: datagrams, address: addressIsShared ? "" : address,
            certificate: certificate, configuration: configuration, now: now)
        clients[client] = session
        var fields = ["datagrams": String(datagrams)]
        if certificate != nil { fields["certificate"] = "yes" }
        return [.log(.debug, "connected", logFields(session, fields))]
    }

    /// The first `join`: on success the client is registered under its peer id and nick,
    /// gets `welcome`, then joins the room. A `join` that fails validation, a wrong password
    /// (`bad-login`) and a guest on an accounts-only server (`account-required`) get an `error`
    /// and leave the client waiting for its hello; a server ban closes it with BANNED.
    func handleHello(_ join: ChatMessage, from session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        guard ChatValidation.isValidNick(join.sender) else {
            sendError(.badNick, id: join.id, to: session, into: &out)
            return
        }
        guard ChatValidation.normalizeRoom(join.roomOrDefault) != nil else {
            sendError(.badRoom, id: join.id, to: session, into: &out)
            return
        }
        guard var peer = helloPeer(of: join, session: session, into: &out) else { return }
        if let previousID = activeChatStreams[peer], let previous = clients[previousID] {
            guard let held = previous.account else {
                // The same device: it keeps the session's nick, rooms and status (PROTOCOL.md
                // section 3); a guest's peer id is its session's credential.
                completeHello(join, peer: peer, account: nil, replacing: previous, session: session, now: now, into: &out)
                return
            }
            // A logged-in session is taken over only by a connection that proves its account
            // (docs/PROTOCOL.md sections 7-8, item 11; issue 23, finding 12); a hello that names
            // another account is that account's, on a new device.
            let named = lookUpAccount(join.sender, for: join, from: session, into: &out)
            if case .unreadable = named { return }
            let lookup = named.account.map { ChatValidation.nickKey($0.name) == ChatValidation.nickKey(held) } == false
                ? AccountLookup.none : lookUpAccount(held, for: join, from: session, into: &out)
            if case .unreadable = lookup { return }
            if let account = lookup.account {
                if isCertificate(session.certificate, boundTo: account.name, into: &out) {
                    completeHello(join, peer: peer, account: account, replacing: previous, session: session, now: now, into: &out)
                    return
                }
                if let password = join.password {
                    checkPassword(password, of: account, named: account.name, for: .hello(join: join, account: account), request: join,
                                  session: session, now: now, into: &out)
                    return
                }
            }
            // Not a replacement: a new device, with a peer id of the server's making.
            peer = makePeerID()
        }
        let lookup = lookUpAccount(join.sender, for: join, from: session, into: &out)
        if case .unreadable = lookup { return }
        guard let account = lookup.account else {
            completeHello(join, peer: peer, account: nil, replacing: nil, session: session, now: now, into: &out)
            return
        }
        if isCertificate(session.certificate, boundTo: account.name, into: &out) {
            completeHello(join, peer: peer, account: account, replacing: nil, session: session, now: now, into: &out)
        } else if let password = join.password {
            checkPassword(password, of: account, named: account.name, for: .hello(join: join, account: account), request: join,
                          session: session, now: now, into: &out)
        } else {
            completeHello(join, peer: peer, account: nil, replacing: nil, session: session, now: now, into: &out)
        }
    }

    /// The upper-case peer id of a hello, or nil after answering `bad-field`.
    private func helloPeer(of join: ChatMessage, session: ClientSession, into out: inout [ServerAction]) -> String? {
        guard let claimed = join.peer else { return makePeerID() }
        guard ChatValidation.isValidPeerID(claimed) else {
            sendError(.badField, "peer must be a UUID", id: join.id, to: session, into: &out)
            return nil
        }
        // Either case is valid; one spelling keeps `abc…` and `ABC…` the same peer. The
        // `welcome` still answers the id as the client sent it.
        return claimed.uppercased()
    }

    /// The hello of a hello-with-password whose password was right. It takes over the session of
    /// its peer id when that session is a guest's or logged in to the same account; a session
    /// logged in to another account is not its to take: it is a new device, with a new peer id.
    func helloPasswordAccepted(_ join: ChatMessage, account: StoredAccount, session: ClientSession, now: Int64,
                               into out: inout [ServerAction]) {
        guard var peer = helloPeer(of: join, session: session, into: &out) else { return }
        var replacing = activeChatStreams[peer].flatMap { clients[$0] }
        if let held = replacing?.accountKey, held != ChatValidation.nickKey(account.name) {
            peer = makePeerID()
            replacing = nil
        }
        completeHello(join, peer: peer, account: account, replacing: replacing, session: session, now: now, into: &out)
    }

    /// The hello itself, once who the client is has been settled: `account` for a login, nil for
    /// a guest; `replacing` for a takeover of the same peer (which keeps that session's login).
    private func completeHello(_ join: ChatMessage, peer: String, account: StoredAccount?, replacing previous: ClientSession?,
                               session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let accountName = account?.name ?? previous?.account
        if configuration.accountsOnly && accountName == nil {
            sendError(.accountRequired, "this server takes logged-in users only: join with your account's password or certificate",
                      id: join.id, to: session, into: &out)
            return
        }
        // When the account was registered: a guest ban by address holds for accounts made since.
        if let account { session.accountCreated = account.created } else if let previous { session.accountCreated = previous.accountCreated }
        if let ban = serverBan(account: accountName, created: session.accountCreated, peer: peer, address: session.address) {
            sendError(.banned, "you are banned from this server" + (ban.reason.isEmpty ? "" : ": \(ban.reason)"), id: join.id,
                      to: session, into: &out)
            close(session, with: .banned, reason: "banned from this server", now: now, into: &out)
            return
        }
        if previous == nil {
            // Which nick is free, and whether the device is connected through another node, only
            // the shared store knows (Cluster/ChatServerState+ClusterHello.swift).
            return beginClusterHello(join, peer: peer, account: accountName, session: session, into: &out)
        }
        let wanted = accountName ?? join.sender
        finishHello(join, peer: peer, account: accountName, replacing: previous,
                    nick: previous == nil ? freeNick(for: wanted, account: accountName, certificate: session.certificate, into: &out)
                        : previous!.nick,
                    session: session, now: now, into: &out)
    }

    /// The hello once the nick is settled: the connection is registered (or takes over `previous`,
    /// a connection of the same device on this node), welcomed, and enters its room.
    /// `peerRecorded`: the shared store's claim wrote the device's lease as it is now already.
    func finishHello(_ join: ChatMessage, peer: String, account accountName: String?, replacing previous: ClientSession?, nick: String,
                     peerRecorded: Bool = false, session: ClientSession, now: Int64, into out: inout [ServerAction]) {
        let earlyStatus = session.statusBeforeHello
        session.statusBeforeHello = nil
        if let previous {
            takeOver(from: previous, by: session, into: &out)
            session.logIn(accountName)
        } else {
            register(session, nick: nick, peer: peer)
            session.logIn(accountName)
            // A new user starts with the status it sent early; the join announces it.
            session.status = earlyStatus ?? .online
        }
        if !peerRecorded { recordPeer(of: session, into: &out) }
        // The id as the client sent it; one the server made (none sent, or not the client's to
        // take over) as made.
        let shownPeer = join.peer.flatMap { $0.uppercased() == session.peer ? $0 : nil } ?? session.peer
        var welcome = ChatMessage.welcome(nick: session.nick, peer: shownPeer, serverName: welcomeText)
        welcome.account = session.account
        welcome.features = features(for: session)
        sendChat(welcome, to: session, into: &out)
        var fields = ["wanted": join.sender]
        if let account = session.account { fields["account"] = account }
        out.append(.log(.info, "hello", logFields(session, fields)))
        if let earlyStatus, previous != nil {
            // A taking-over connection announces a change, as a `status` after the hello would.
            changeStatus(of: session, to: earlyStatus, into: &out)
        }
        if let room = ChatValidation.normalizeRoom(join.roomOrDefault) {
            enter(room, since: join.since, id: join.id, session: session, now: now, into: &out)
        }
    }

    /// What `welcome` lists in `features` (PROTOCOL.md, version 1.1 additions): files only for
    /// `qchat/1` (a `chat` ALPN peer has none), `cluster` on a node of several.
    func features(for session: ClientSession) -> [String] {
        var features = ["accounts", "moderation"]
        if !session.isLegacy { features.append("files") }
        if configuration.nodeName != nil { features.append("cluster") }
        return features
    }

    /// `welcome`'s `text`: the server's name, and on a node of several `NAME/NODE` (PROTOCOL.md
    /// section 10: it names the node).
    var welcomeText: String {
        guard let node = configuration.nodeName else { return configuration.serverName }
        return "\(configuration.serverName)/\(node)"
    }

    /// `wanted` if it is free, else the first free `wanted_2`, `wanted_3`, ...: a nick is taken
    /// when a connection holds it, and also when it is reserved for another than `account`
    /// (``isReserved(_:toOtherThan:certificate:into:)``). A store that cannot say counts the nick
    /// as taken. `renaming` is the connection that asks, when it holds a nick already (a nick it
    /// holds is free for it); `certificate` the asker's.
    func freeNick(for wanted: String, account: String?, certificate: String?, renaming: ClientSession? = nil,
                  into out: inout [ServerAction]) -> String {
        let ownKey = account.map(ChatValidation.nickKey)
        return ChatValidation.firstFreeNick(for: wanted) { candidate in
            if let holder = activeSession(forNick: candidate), holder !== renaming { return true }
            return isReserved(candidate, toOtherThan: ownKey, certificate: certificate, into: &out)
        }
    }

    /// Whether `nick` is kept from anyone but the account keyed `ownKey`: it is an account, or a
    /// server operator's name (reserved from the start, created on the console), which only a
    /// connection presenting the certificate configured for it (`--operator NAME=sha256:...`) may
    /// take before the account exists.
    func isReserved(_ nick: String, toOtherThan ownKey: String?, certificate: String?, into out: inout [ServerAction]) -> Bool {
        let key = ChatValidation.nickKey(nick)
        guard key != ownKey else { return false }
        if policies.operatorKeys.contains(key) && !isOperatorCertificate(certificate, of: key) { return true }
        // With a shared store the nicks a request checks were read first; a further suffixed
        // form not read (nine of them taken) is taken as free rather than tried for ever.
        if !accounts.isKnown(nick) { return false }
        do {
            return try accounts.account(named: nick) != nil
        } catch {
            out.append(.log(.error, "account read failed", ["error": "\(error)"]))
            return true
        }
    }

    private func register(_ session: ClientSession, nick: String, peer: String) {
        session.phase = .active
        session.nick = nick
        session.peer = peer
        clientsByNickKey[ChatValidation.nickKey(nick)] = session.id
        activeChatStreams[peer] = session.id
        if session.hasPresenceStream { activePresenceStreams[peer] = session.id }
    }

    /// The same peer said hello on a newer connection: the old one is closed with REPLACED
    /// and the new one inherits its nick, rooms, status and login, without `left` or `status`
    /// events, since for everyone else the user never went away.
    private func takeOver(from previous: ClientSession, by session: ClientSession, into out: inout [ServerAction]) {
        out.append(.close(previous.id, .replaced, reason: "replaced by a newer connection"))
        out.append(.log(.info, "close", logFields(previous, ["code": CloseCode.replaced.name, "by": String(session.id)])))
        clients[previous.id] = nil
        register(session, nick: previous.nick, peer: previous.peer)
        session.logIn(previous.account, created: previous.accountCreated)
        session.status = previous.status
        session.rooms = previous.rooms
        if !session.hasPresenceStream, activePresenceStreams[previous.peer] == previous.id {
            activePresenceStreams[previous.peer] = nil
        }
        for room in previous.rooms {
            rooms[room]?.members[previous.id] = nil
            rooms[room]?.members[session.id] = session
        }
    }
}
