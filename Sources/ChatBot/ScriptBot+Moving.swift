import ChatClientKit
import ChatProtocol
import QuicIO

/// Moves: a bot whose connection is lost by no fault of its own (the node died, the server
/// restarted, the path went idle) comes back as chat-client does (PROTOCOL.md sections 6 and 10):
/// to the next server (the same one when there is one), after ChatClientKit's backoff, with the
/// same peer id and nick; its hello re-joins its first room with `since` = the last seq it had
/// there, then it re-joins its other rooms the same way, asks again for a `join` or `part` it was
/// waiting for, and sends its unacknowledged `msg` and `dm` again with their ids. Its commands
/// wait meanwhile; an `expect` keeps waiting within its `within`, and a room event it missed while
/// away (replayed above the `since` of its re-join) counts for it like a live one.
extension ScriptBot {
    /// A move under way.
    struct Move {
        /// Why the first connection of the move was lost.
        var reason: QuicCloseReason
        /// Fails the run when the bot is not back in time.
        var deadline: LoopTimerID
        /// The room the hello joins; nil until a connection is made.
        var helloRoom: String?
    }

    /// Connected, or between connections on its way back.
    var isLive: Bool { session.isOpen || move != nil }

    /// The run fails when the bot is not back ``moveTimeoutMilliseconds`` after the first loss.
    func moveAway(after reason: QuicCloseReason) {
        let tried = rotation.current.label
        rotation.advance()
        if move == nil {
            let timeout = moveTimeoutMilliseconds ?? 0
            assignedNick = session.assignedNick ?? assignedNick
            let deadline = runner.loop.schedule(at: .now() + .milliseconds(timeout)) { [unowned self] in
                failClosed(reason, detail: "; not back within \(DurationRange.format(timeout))")
            }
            move = Move(reason: reason, deadline: deadline)
            files.connectionLost()
            runner.note("\(definition.name): connection lost (\(reason)); moving to \(rotation.current.label)")
        } else {
            runner.note("\(definition.name): reconnecting to \(tried) failed (\(reason)); trying \(rotation.current.label)")
        }
        let delay = rotation.backoff(using: &random)
        runner.loop.schedule(at: .now() + delay) { [unowned self] in reconnect() }
    }

    /// Its first connection failed (its server is dead or unreachable): the next server, after
    /// the rotation's backoff, as long as the runner's connect deadline allows. (Issue 26, item 5:
    /// the run failed at once when the first server of several was dead.)
    func retryFirstConnection(after reason: QuicCloseReason) {
        let tried = rotation.current.label
        rotation.advance()
        runner.note("\(definition.name): connecting to \(tried) failed (\(reason)); trying \(rotation.current.label)")
        let delay = rotation.backoff(using: &random)
        runner.loop.schedule(at: .now() + delay) { [unowned self] in
            guard phase == .connecting, runner.status == 0 else { return }
            do {
                let next = try runner.connect(nick: nick, peer: peer, room: definition.room, since: nil, to: rotation.current)
                next.helloPassword = definition.password
                attach(next)
            } catch {
                retryFirstConnection(after: QuicCloseReason(kind: .dropped, reason: "\(error)", byPeer: false))
            }
        }
    }

    private func reconnect() {
        guard move != nil, phase != .closing else { return }
        // A hello joins a room: the first the bot is in, or (it left them all) its own first
        // room, left again once it is back.
        let room = rooms.first ?? definition.room
        do {
            let next = try runner.connect(nick: nick, peer: peer, room: room, since: rooms.isEmpty ? nil : lastSeq[room],
                                          to: rotation.current)
            next.helloPassword = definition.password
            move?.helloRoom = room
            resuming = [:]
            for joined in rooms { resuming[joined] = lastSeq[joined] ?? 0 }
            attach(next)
        } catch {
            moveAway(after: QuicCloseReason(kind: .dropped, reason: "\(error)", byPeer: false))
        }
    }

    /// The bot's own live `joined` of `room` after a move: true when it was a re-join (the
    /// bot's state does not change, its replay is over); the hello's room makes it back.
    func rejoined(_ room: String) -> Bool {
        let isHello = move?.helloRoom == room
        guard resuming.removeValue(forKey: room) != nil || isHello else { return false }
        if isHello { back() }
        if case .joining(let awaited) = blocker, awaited == room {
            rememberJoined(room)
            unblock()
        }
        return true
    }

    /// In again: the other rooms, the request it waited for, its unacknowledged messages, then its
    /// commands go on.
    private func back() {
        guard let move else { return }
        rotation.connected()
        for room in rooms.dropFirst() { session.send(.join(room: room, since: lastSeq[room])) }
        if rooms.isEmpty, let room = move.helloRoom, !isJoining(room) { session.send(.part(room: room)) }
        switch blocker {
        case .joining(let room) where !rooms.contains(room) && room != move.helloRoom: session.send(.join(room: room))
        case .parting(let room): session.send(.part(room: room))
        default: break
        }
        for message in unacknowledged { session.send(message) }
        files.connected(session.connection)
        endMove()
        runner.note("\(definition.name): back, through \(rotation.current.label)")
        if phase == .running, blocker == nil { advance() }
    }

    private func isJoining(_ room: String) -> Bool {
        if case .joining(let awaited) = blocker { return awaited == room }
        return false
    }

    func endMove() {
        if let move { runner.loop.cancel(move.deadline) }
        move = nil
    }

    /// Whether a replayed `message` is one the bot missed while away: an event of a room it is
    /// re-joining, above the `since` of that re-join.
    func missedWhileAway(_ message: ChatMessage) -> Bool {
        guard message.replay == true, let room = message.room, let since = resuming[room], let seq = message.seq else { return false }
        return seq > since
    }
}
