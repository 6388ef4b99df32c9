import CLIOptions
import ChatClientKit
import QuicEngine

/// Opening connections (the first storm, limited to --connect-parallel handshakes in flight),
/// churn, and connections that end.
extension LoadGenerator {
    func startClient(slot: Int, firstAttempt: MonotonicTime = .now()) {
        let room = roomName(forSlot: slot)
        let rotation = ServerRotation(servers: servers, startingAt: slot)
        let session: ChatSession
        do {
            session = try pool.connect(nick: "\(options.nickPrefix)\(slot)", room: room, to: rotation.current)
        } catch {
            Console.error("chat-bot load: cannot connect: \(error)")
            if phase == .connecting { firstConnectionEnded(joined: false) }
            return
        }
        let server = rotation.current
        let client = LoadClient(id: clients.count, slot: slot, room: room, session: session, rotation: rotation, connectStarted: firstAttempt,
                                server: servers.count > 1 ? server.label : server.spec.description)
        clients.append(client)
        current[slot] = client
        attach(session, to: client)
        client.files.onEvent = { [unowned self] event in fileTransferred(event) }
    }

    /// Makes `session` the client's connection: what it receives and its end are the client's
    /// (those of a connection it had before are not).
    func attach(_ session: ChatSession, to client: LoadClient) {
        client.session = session
        session.onMessage = { [unowned self, unowned client, unowned session] message, _ in
            if session === client.session { receive(message, for: client) }
        }
        session.onClose = { [unowned self, unowned client, unowned session] reason in
            if session === client.session { closed(client, reason) }
        }
        session.onFileStreamEvent = { [unowned client, unowned session] event in
            if session === client.session { client.files.handle(event) }
        }
    }

    /// The client's own `joined` arrived: its membership starts at that seq.
    func joined(_ client: LoadClient, seq: Int64) {
        client.state = .joined
        client.files.connected(client.session.connection)
        client.joinedSeq = seq
        client.lastSeq = max(client.lastSeq ?? seq, seq)
        client.seen = SeenSet(base: seq + 1)
        if let nick = client.session.assignedNick {
            client.nick = nick
            byNick[nick] = client
        }
        joinedPerRoom[client.room, default: 0] += 1
        stats.connectTime.record((MonotonicTime.now() - client.connectStarted).nanoseconds)
        if phase == .connecting {
            stats.joinedPerServer[client.server, default: 0] += 1
            firstConnectionEnded(joined: true)
        } else {
            stats.churnConnects += 1
        }
    }

    /// Churn: the next joined client leaves (part, then quit at its own `left`) and a new
    /// connection takes its slot at once, so connects happen at the --churn rate.
    func churnOne() {
        for _ in 0..<options.clients {
            let slot = churnCursor % options.clients
            churnCursor += 1
            guard let client = current[slot], client.state == .joined else { continue }
            client.state = .leaving
            joinedPerRoom[client.room, default: 1] -= 1
            client.session.send(.part(room: client.room))
            stats.churnStarted += 1
            startClient(slot: slot)
            return
        }
    }

    /// As chat-client does, a first connection whose handshake failed (a dead server, or a lossy
    /// link that outlasted the handshake and idle timers) is tried again, on the next server after
    /// the rotation's backoff (0.25-0.75 s, doubling): the client stays `connecting`, its connect
    /// time counts from the first attempt, and the connect phase's deadline still bounds it.
    /// (Issue 26, item 5: it was retried at once on the same server; a dead one, refusing at once,
    /// took about 10,000 attempts a second, and with 3,000 clients only 176 joined in 90 s.)
    private func retryFirstConnection(_ client: LoadClient) {
        stats.connectRetries += 1
        client.rotation.advance()
        let delay = client.rotation.backoff(using: &random)
        loop.schedule(at: .now() + delay) { [unowned self, unowned client] in
            guard client.state == .connecting, phase == .connecting else { return }
            do {
                let session = try pool.connect(nick: "\(options.nickPrefix)\(client.slot)", peer: client.peer, room: client.room, since: nil,
                                               to: client.rotation.current)
                client.server = servers.count > 1 ? client.rotation.current.label : client.rotation.current.spec.description
                attach(session, to: client)
            } catch {
                retryFirstConnection(client)
            }
        }
    }

    /// The own `left` of a churned client: its membership ends at that seq.
    func left(_ client: LoadClient, seq: Int64) {
        client.leftSeq = seq
        client.state = .gone
        if let nick = client.session.assignedNick, byNick[nick] === client { byNick[nick] = nil }
        client.session.quit()
    }

    /// A connection ended that the client did not close itself. A joined (or moving) client whose
    /// server or path went away moves (``move(_:after:)``); anything else ends the client.
    func closed(_ client: LoadClient, _ reason: QuicCloseReason) {
        let previous = client.state
        guard previous != .gone, previous != .failed else { return }
        if previous == .joined || previous == .moving, options.moves, phase != .done, ConnectionLoss(reason) == .transient {
            return move(client, after: reason)
        }
        if previous == .connecting && phase == .connecting && !reason.byPeer {
            return retryFirstConnection(client)
        }
        client.state = .failed
        if let nick = client.session.assignedNick, byNick[nick] === client { byNick[nick] = nil }
        if previous == .joined { joinedPerRoom[client.room, default: 1] -= 1 }
        if previous == .connecting && phase == .connecting {
            firstConnectionEnded(joined: false)
        } else {
            stats.closedUnexpectedly += 1
        }
        if stats.firstCloseReasons.count < 5 { stats.firstCloseReasons.append("\(client.nick): \(reason)") }
    }
}
