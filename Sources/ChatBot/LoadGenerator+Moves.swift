import ChatClientKit
import ChatProtocol
import QuicEngine

/// Moves: a joined client whose connection is lost by no fault of its own (the node died, the
/// server restarted, the path went idle) comes back as chat-client does (PROTOCOL.md sections 6
/// and 10): to the next server (the same one when there is one), after ChatClientKit's backoff,
/// with the same peer id and nick, re-joining its room with `since` = the last seq it had, and
/// once it is in again, sending its unacknowledged messages again with their ids (the server
/// acknowledges one it stored before the loss with its first seq, and stores it once).
/// `--no-move` turns this off: such a client counts as closed unexpectedly.
extension LoadGenerator {
    func move(_ client: LoadClient, after reason: QuicCloseReason) {
        if client.state == .joined {
            client.state = .moving
            client.moveStarted = .now()
            joinedPerRoom[client.room, default: 1] -= 1
            if let nick = client.session.assignedNick {
                client.nick = nick
                if byNick[nick] === client { byNick[nick] = nil }
            }
            stats.countMoveReason(reason.description)
        }
        client.files.connectionLost()
        client.rotation.advance()
        let delay = client.rotation.backoff(using: &random)
        loop.schedule(at: .now() + delay) { [unowned self, unowned client] in reconnect(client) }
    }

    private func reconnect(_ client: LoadClient) {
        guard client.state == .moving, phase != .done else { return }
        do {
            let session = try pool.connect(nick: client.nick, peer: client.peer, room: client.room, since: client.lastSeq,
                                           to: client.rotation.current)
            attach(session, to: client)
        } catch {
            move(client, after: QuicCloseReason(kind: .dropped, reason: "\(error)", byPeer: false))
        }
    }

    /// The moving client's own live `joined` on its new connection: it is in again (its replay,
    /// which came first, filled what it missed).
    func rejoined(_ client: LoadClient) {
        client.state = .joined
        client.rotation.connected()
        if let nick = client.session.assignedNick {
            client.nick = nick
            byNick[nick] = client
        }
        joinedPerRoom[client.room, default: 0] += 1
        client.files.connected(client.session.connection)
        stats.moves += 1
        if let started = client.moveStarted { stats.moveTime.record((MonotonicTime.now() - started).nanoseconds) }
        client.moveStarted = nil
        for (id, pending) in client.pending.sorted(by: { $0.key < $1.key }) {
            client.pending[id]?.awaitingResend = false
            client.session.send(.msg(room: client.room, text: pending.text, id: String(id)))
            stats.resent += 1
        }
    }

    /// Clients that have not come back (yet).
    var movingCount: Int { clients.count { $0.state == .moving } }
}
