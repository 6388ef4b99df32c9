import ChatProtocol
import QuicEngine
import Testing

@testable import ChatClientKit

/// Each rule of a session that comes back (PROTOCOL.md sections 3, 6 and 10), on a virtual clock:
/// what used to be checked only by killing real servers under tmux.
struct SessionCoreTests {
    static let kicked = QuicCloseReason.Kind.application(code: CloseCode.kicked.rawValue)

    /// Before the first `welcome`, each server is tried once, in order, at once; then the session
    /// ends, unreachable, naming why each failed.
    @Test func firstRoundTriesEachServerOnce() {
        var session = VirtualSession(servers: 3)
        session.start()
        session.lose()
        session.advanceToDeadline()
        #expect(session.now == VirtualSession().now)
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.map(\.server) == ["node1", "node2", "node3"])
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.count == 3)
        guard case .stopped(let ending) = session.core.state else { Issue.record("\(session.core.state)"); return }
        #expect(ending.kind == .unreachable && ending.reason.hasPrefix("node1:4433 (127.0.0.1): idle timeout"))
        #expect(session.core.deadline == nil)
    }

    /// After a `welcome`, a lost connection is retried with backoff (0.5 s doubling to 10 s), and
    /// every room is joined again with `since` = the last room event seen there (an ack's seq does
    /// not count); a `welcome` starts the backoff again.
    @Test func reconnectsWithBackoffAndRejoinsSince() {
        var session = VirtualSession(rooms: ["lobby", "dev"])
        session.start()
        #expect(session.connections[0].hello.room == "lobby" && session.connections[0].hello.since == nil)
        session.welcome()
        #expect(session.written == ["join dev"])
        session.joined("dev", seq: 5)
        session.receive(.relayedMsg(room: "lobby", sender: "bob", text: "hi", id: nil, seq: 7, ts: 1))
        session.receive(.ack(id: "x", room: "lobby", seq: 9, ts: 1))
        var delays: [UInt64] = []
        for _ in 0..<7 {
            session.lose()
            let before = session.now
            session.advanceToDeadline()
            delays.append(UInt64((session.now - before).milliseconds.rounded()))
        }
        #expect(delays == [500, 1000, 2000, 4000, 8000, 10000, 10000])
        #expect(session.states.suffix(2) == [.reconnecting(attempt: 6, reason: "idle timeout"), .reconnecting(attempt: 7, reason: "idle timeout")])
        #expect(session.connections.last?.hello.since == 7)
        let mark = session.actions.count
        session.welcome()
        #expect(session.actions(since: mark).contains(.state(.connected)))
        #expect(session.written.last == "join dev since 5")
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.count == 9)
        #expect(session.core.rotation.attempt == 1)
    }

    /// Messages not acknowledged, and those typed during the outage, go out again on the next
    /// connection in the order typed, with the same ids; an acknowledged one does not.
    @Test func unansweredMessagesGoOutAgainInOrder() {
        var session = VirtualSession()
        session.start()
        session.welcome()
        let sent1 = session.send(.msg(room: "lobby", text: "one", id: "ID1"))
        #expect(sent1)
        let sent2 = session.send(.msg(room: "lobby", text: "two", id: "ID2"))
        #expect(sent2)
        session.receive(.ack(id: "ID1", room: "lobby", seq: 3, ts: 1))
        session.lose()
        let sent3 = session.send(.msg(room: "lobby", text: "three", id: "ID3"))
        #expect(sent3)
        #expect(session.writtenIDs == ["ID1", "ID2"])
        session.advanceToDeadline()
        session.welcome()
        #expect(session.writtenIDs == ["ID1", "ID2", "ID2", "ID3"])
        #expect(session.core.outbox.pendingMessages.map(\.text) == ["two", "three"])
    }

    /// A `rate-limited` refusal is not shown: the request goes back in line and out again once the
    /// (now smaller) modelled bucket has a token.
    @Test func rateLimitedIsSentAgain() {
        var session = VirtualSession()
        session.start()
        session.welcome()
        _ = session.send(.msg(room: "lobby", text: "hi", id: "ID1"))
        let mark = session.actions.count
        session.receive(.error(code: .rateLimited, text: "slow down", id: "ID1"))
        #expect(!session.actions(since: mark).contains { if case .deliver = $0 { true } else { false } })
        #expect(session.writtenIDs == ["ID1"])
        session.advance(.seconds(1))
        #expect(session.writtenIDs == ["ID1", "ID1"])
    }

    /// `unavailable` (a node without its store) is retried after 1 s, then 2 s, …; given up after
    /// ten, when it is shown.
    @Test func unavailableIsRetriedThenShown() {
        var session = VirtualSession()
        session.start()
        session.welcome()
        _ = session.send(.msg(room: "lobby", text: "hi", id: "ID1"))
        for attempt in 1..<Outbox.unavailableAttempts {
            let mark = session.actions.count
            session.receive(.error(code: .unavailable, text: "no store", id: "ID1"))
            #expect(!session.actions(since: mark).contains { if case .deliver = $0 { true } else { false } })
            session.advance(.milliseconds(UInt64(1000 << min(attempt - 1, 4))))
            #expect(session.writtenIDs.count == attempt + 1)
        }
        let mark = session.actions.count
        session.receive(.error(code: .unavailable, text: "no store", id: "ID1"))
        #expect(session.actions(since: mark).contains { if case .deliver = $0 { true } else { false } })
    }

    /// A hello refused for its nick leaves the connection open in `refused`; another nick says
    /// hello again on it. A close while refused ends the session.
    @Test func refusedHelloWaitsForAnotherNick() {
        var session = VirtualSession()
        session.start()
        session.receive(.error(code: .badNick, text: "taken"))
        #expect(session.core.state == .refused(code: "bad-nick", text: "taken"))
        session.record(session.core.retry(nick: "bob", now: session.now))
        #expect(session.core.state == .connecting && session.written == ["join lobby"])
        session.receive(.error(code: .badNick, text: "taken too"))
        session.lose()
        #expect(session.core.state == .stopped(SessionEnding(.closed, "bad-nick: taken too")))
    }

    /// A server too busy for the hello (`rate-limited` before the welcome) gets it again after
    /// 0.5-1.5 s, once.
    @Test func busyServerGetsTheHelloAgain() {
        var session = VirtualSession()
        session.start()
        session.receive(.error(code: .rateLimited, text: "busy"))
        session.advance(.milliseconds(999))
        #expect(session.written.isEmpty)
        session.advance(.milliseconds(1))
        #expect(session.written == ["join lobby"])
        session.advance(.seconds(10))
        #expect(session.written == ["join lobby"])
    }

    /// An unknown certificate before the first welcome: the session waits in `unknownServer`;
    /// trusting it pins it and connects again. After a welcome the client decides at once: no
    /// means the server is left out.
    @Test func unknownCertificates() {
        var session = VirtualSession(servers: 2)
        session.start()
        session.lose(.tlsFailure(alert: 42), verdict: .unknown(presented: "ab"))
        #expect(session.core.state == .unknownServer(fingerprint: "ab"))
        session.record(session.core.trust(fingerprint: "ab", now: session.now))
        #expect(session.connections.count == 2 && session.core.rotation.current.policy == .pinned("ab"))
        session.welcome()
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.last?.server == "node2")
        session.lose(.tlsFailure(alert: 42), verdict: .unknown(presented: "cd"))
        #expect(session.actions.last == .decideTrust(session.core.rotation.current, fingerprint: "cd"))
        session.record(session.core.trustDecided(false, now: session.now))
        #expect(session.actions.contains(.problem("node2:4433 (127.0.0.2) is not trusted (its certificate sha256:cd is not known); not using it")))
        session.advanceToDeadline()
        #expect(session.connections.last?.server == "node1")
    }

    /// A changed certificate, KICKED, REPLACED and BANNED end the session; FLOODING (the client's
    /// own fault) and SHUTDOWN do not.
    @Test func finalEndings() {
        for (kind, final) in [(QuicCloseReason.Kind.application(code: CloseCode.kicked.rawValue), true),
                              (.application(code: CloseCode.replaced.rawValue), true), (.application(code: CloseCode.banned.rawValue), true),
                              (.application(code: CloseCode.flooding.rawValue), false), (.application(code: CloseCode.shutdown.rawValue), false)] {
            var session = VirtualSession()
            session.start()
            session.welcome()
            session.lose(kind, byPeer: true)
            if case .stopped = session.core.state { #expect(final, "\(kind)") } else { #expect(!final, "\(kind)") }
        }
        var session = VirtualSession()
        session.start()
        session.welcome()
        session.lose(verdict: .changed(pinned: "aa", presented: "bb"))
        guard case .stopped(let ending) = session.core.state else { Issue.record("\(session.core.state)"); return }
        #expect(ending.kind == .certificateChanged(pinned: "aa", presented: "bb"))
    }

    /// A room the person was kicked or banned from is not joined again after a reconnect; a room
    /// they parted is not either. With every room left, the hello (which must join one) joins
    /// the default room and leaves it right after the welcome.
    @Test func roomsLeftAreNotRejoined() {
        var session = VirtualSession(rooms: ["lobby", "dev"])
        session.start()
        session.welcome()
        session.joined("dev", seq: 2)
        session.receive(ChatMessage(type: "kicked", text: "bye", sender: "op", room: "dev", seq: 3, to: "alice"))
        #expect(session.core.rooms.map(\.name) == ["lobby"])
        _ = session.send(.part(room: "lobby"))
        session.receive(ChatMessage(type: "left", text: "part", sender: "alice", room: "lobby", seq: 4))
        #expect(session.core.rooms.isEmpty)
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.last?.hello.room == "lobby")
        let mark = session.written.count
        session.welcome()
        #expect(Array(session.written[mark...]) == ["part lobby"])
    }

    /// The status chosen is said in every hello, not sent again; joins typed during an outage are
    /// carried out after the re-joins, in order (one of a room the session is in asks for a resync).
    @Test func statusAndJoinsAcrossAnOutage() {
        var session = VirtualSession()
        session.start()
        session.welcome()
        session.record(session.core.setStatus("away", now: session.now))
        #expect(session.actions.contains(.write(.status("away"), .presence)) == false)
        #expect(session.actions.contains { if case .write(let message, .presence) = $0 { message.text == "away" } else { false } })
        session.lose()
        _ = session.send(.join(room: "lobby"))
        _ = session.send(.join(room: "dev"))
        session.advanceToDeadline()
        #expect(session.connections.last?.hello.status == "away")
        let mark = session.written.count
        session.welcome()
        #expect(Array(session.written[mark...]) == ["join lobby", "join dev"])
    }

    /// A status chosen while a connection attempt is already under way (its hello made with the
    /// old one) goes out once that connection is welcomed; one chosen before it started is in
    /// the hello and not sent again.
    @Test func statusChosenDuringAConnectionAttempt() {
        var session = VirtualSession()
        session.start()
        session.welcome()
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.last?.hello.status == "online")
        session.record(session.core.setStatus("away", now: session.now))
        let mark = session.actions.count
        session.welcome()
        let statuses = session.actions(since: mark).compactMap { action -> String? in
            if case .write(let message, .presence) = action, message.type == "status" { message.text } else { nil }
        }
        #expect(statuses == ["away"])
        // The next outage's hello says it; nothing is sent again after that welcome.
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.last?.hello.status == "away")
        let again = session.actions.count
        session.welcome()
        #expect(!session.actions(since: again).contains { if case .write(let message, .presence) = $0 { message.type == "status" } else { false } })
    }

    /// Quitting closes the connection and ends the session; nothing comes back after it.
    @Test func quitting() {
        var session = VirtualSession()
        session.start()
        session.welcome()
        session.record(session.core.quit())
        #expect(session.actions.suffix(2) == [.close, .state(.stopped(SessionEnding(.quit, "quit")))])
        session.lose()
        session.advance(.seconds(60))
        #expect(session.connections.count == 1)
    }

    /// `/quit MESSAGE` (issue 24): the `quit` request is written and the session waits for the
    /// server's close, then ends without reconnecting; an older server's error for it, or no
    /// answer within the patience, and the session closes the connection itself.
    @Test func quittingWithAMessage() {
        var server = VirtualSession()
        server.start()
        server.welcome()
        server.record(server.core.quit(message: "gone home", id: "q1", now: server.now))
        #expect(server.written.last == "quit - gone home", "\(server.written)")
        #expect(!server.actions.contains(.close) && server.states.last != .stopped(SessionEnding(.quit, "quit")))
        server.lose(.application(code: 0), byPeer: true)
        #expect(server.states.last == .stopped(SessionEnding(.quit, "quit")))
        server.advance(.seconds(60))
        #expect(server.connections.count == 1)

        var older = VirtualSession()
        older.start()
        older.welcome()
        older.record(older.core.quit(message: "bye", id: "q2", now: older.now))
        older.receive(ChatMessage(type: "error", text: "unknown message type", id: "q2", code: "unknown-type"))
        #expect(older.actions.suffix(2) == [.close, .state(.stopped(SessionEnding(.quit, "quit")))])

        var silent = VirtualSession()
        silent.start()
        silent.welcome()
        silent.record(silent.core.quit(message: "bye", id: "q3", now: silent.now))
        silent.advance(.milliseconds(1_999))
        #expect(!silent.actions.contains(.close))
        silent.advanceToDeadline()
        #expect(silent.actions.suffix(2) == [.close, .state(.stopped(SessionEnding(.quit, "quit")))])
    }

    /// With several servers a lost connection moves to the next; a TLS failure leaves that
    /// server out for the run, the others still serve; with none left the session ends.
    @Test func severalServers() {
        var session = VirtualSession(servers: 2)
        session.start()
        session.welcome()
        session.lose()
        session.advanceToDeadline()
        #expect(session.connections.map(\.server) == ["node1", "node2"])
        session.lose(.tlsFailure(alert: 48))
        session.advanceToDeadline()
        #expect(session.connections.map(\.server) == ["node1", "node2", "node1"])
        session.lose(.tlsFailure(alert: 48))
        guard case .stopped(let ending) = session.core.state else { Issue.record("\(session.core.state)"); return }
        #expect(ending.kind == .untrusted)
    }

    /// Issue 24, defect 3: a `/join` of a room the person was kicked from asks only for what came
    /// after the kick (its earlier lines are still on screen); a join after that asks as usual.
    @Test func joinAfterAKickAsksForWhatCameAfter() {
        var session = VirtualSession(rooms: ["lobby", "dev"])
        session.start()
        session.welcome()
        session.joined("dev", seq: 2)
        session.receive(.relayedMsg(room: "dev", sender: "carol", text: "hi", id: nil, seq: 3, ts: 1))
        session.receive(ChatMessage(type: "kicked", text: "out", sender: "op", room: "dev", seq: 4, to: "alice"))
        _ = session.send(.join(room: "dev"))
        #expect(session.written.last == "join dev since 4")
        session.joined("dev", seq: 6)
        _ = session.send(.part(room: "dev"))
        session.receive(ChatMessage(type: "left", text: "part", sender: "alice", room: "dev", seq: 7))
        _ = session.send(.join(room: "dev"))
        #expect(session.written.last == "join dev")
    }

    /// Issue 24, defect 7: with patience, a server down at start is tried again and again, each
    /// server in turn with a reconnect's backoff, until it answers or the patience runs out.
    @Test func aServerDownAtStartIsWaitedFor() {
        var session = VirtualSession(patience: .seconds(20))
        session.start()
        for _ in 0..<4 {
            session.lose(.dropped)
            #expect(session.core.state != .stopped(SessionEnding(.unreachable, "")))
            session.advanceToDeadline()
        }
        #expect(session.connections.count == 5)
        #expect(session.core.state == .reconnecting(attempt: 4, reason: "dropped: lost"))
        session.welcome()
        #expect(session.core.state == .connected)

        var impatient = VirtualSession(patience: .seconds(5))
        impatient.start()
        while impatient.core.state != .connected, impatient.connections.count < 50 {
            impatient.lose(.dropped)
            guard case .reconnecting = impatient.core.state else { break }
            impatient.advanceToDeadline()
        }
        guard case .stopped(let ending) = impatient.core.state else { Issue.record("\(impatient.core.state)"); return }
        #expect(ending.kind == .unreachable && impatient.now - VirtualSession().now >= .seconds(5))
    }

    /// Issue 24, defect 11: the session's own nick is marked logged in (`+`) in every room as
    /// soon as an `account` says so, and again after a /login renamed it; not at the next roster.
    @Test func ownAccountMarksTheOwnNick() {
        var session = VirtualSession(nick: "alice_2")
        session.start()
        session.welcome(as: "alice_2")
        session.joined("lobby", seq: 1, as: "alice_2")
        session.receive(ChatMessage(type: "roster", room: "lobby", members: ["alice_2", "bob"]), on: .presence)
        #expect(!session.core.members.info(of: "lobby").isIdentified("alice_2"))
        let mark = session.actions.count
        session.receive(ChatMessage(type: "account", text: "logged-in", account: "alice"))
        #expect(session.core.members.info(of: "lobby").isIdentified("alice_2"))
        #expect(session.actions(since: mark).contains(.membersChanged("lobby")))
        session.receive(ChatMessage(type: "nick", text: "alice", sender: "alice_2", room: "lobby", seq: 2))
        #expect(session.core.members.info(of: "lobby").identified == ["alice"])
    }
}
