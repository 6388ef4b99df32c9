import CLIOptions
import ChatClientKit
import QuicEngine

/// Opening connections (the first storm, limited to --connect-parallel handshakes in flight),
/// churn, and connections that end.
extension LoadGenerator {
    func startClient(slot: Int, firstAttempt: QuicTime = .now()) {
        let room = roomName(forSlot: slot)
        let server = servers[slot % servers.count]
        let session: ChatSession
        do {
            session = try pool.connect(nick: "\(options.nickPrefix)\(slot)", room: room, to: server)
        } catch {
            Console.error("chat-bot load: cannot connect: \(error)")
            if phase == .connecting { firstConnectionEnded(joined: false) }
            return
        }
        let client = LoadClient(id: clients.count, slot: slot, room: room, session: session, connectStarted: firstAttempt,
                                server: servers.count > 1 ? server.label : server.spec.description)
        clients.append(client)
        current[slot] = client
        session.onMessage = { [unowned self, unowned client] message, _ in receive(message, for: client) }
        session.onClose = { [unowned self, unowned client] reason in closed(client, reason) }
        session.onFileStreamEvent = { [unowned client] event in client.files.handle(event) }
        client.files.onEvent = { [unowned self] event in fileTransferred(event) }
    }

    /// The client's own `joined` arrived: its membership starts at that seq.
    func joined(_ client: LoadClient, seq: Int64) {
        client.state = .joined
        client.files.connected(client.session.connection)
        client.joinedSeq = seq
        client.seen = SeenSet(base: seq + 1)
        if let nick = client.session.assignedNick { byNick[nick] = client }
        joinedPerRoom[client.room, default: 0] += 1
        stats.connectTime.record((QuicTime.now() - client.connectStarted).nanoseconds)
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

    /// The own `left` of a churned client: its membership ends at that seq.
    func left(_ client: LoadClient, seq: Int64) {
        client.leftSeq = seq
        client.state = .gone
        if let nick = client.session.assignedNick, byNick[nick] === client { byNick[nick] = nil }
        client.session.quit()
    }

    func closed(_ client: LoadClient, _ reason: QuicCloseReason) {
        let previous = client.state
        guard previous != .gone, previous != .failed else { return }
        client.state = .failed
        if let nick = client.session.assignedNick, byNick[nick] === client { byNick[nick] = nil }
        if previous == .joined { joinedPerRoom[client.room, default: 1] -= 1 }
        if previous == .connecting && phase == .connecting && !reason.byPeer {
            // As chat-client does, a first connection whose handshake failed (a lossy link can
            // outlast the handshake and idle timers) is tried again; its connect time counts
            // from the first attempt, and the connect phase's own deadline still bounds it.
            stats.connectRetries += 1
            startClient(slot: client.slot, firstAttempt: client.connectStarted)
            return
        } else if previous == .connecting && phase == .connecting {
            firstConnectionEnded(joined: false)
        } else {
            stats.closedUnexpectedly += 1
        }
        if stats.firstCloseReasons.count < 5 { stats.firstCloseReasons.append("\(client.session.nick): \(reason)") }
    }
}
