import ChatProtocol
import QuicEngine

/// A lost connection: what is kept for the next one, whether and when there is a next one, and
/// to which server (PROTOCOL.md sections 6 and 10).
extension SessionCore {
    /// The current connection closed (or could not be made: `verdict` nil and a `dropped`
    /// reason). `verdict` is what the handshake said of the server's certificate.
    public mutating func closed(_ reason: QuicCloseReason, verdict: ServerCertificateVerdict?, now: MonotonicTime) -> [Action] {
        hasConnection = false
        // The server closed as a quit with a message asked: the session ends here.
        if quitAt != nil { return quit() }
        guard !quitting else { return taken() }
        lost(reason, verdict: verdict, now: now)
        return taken()
    }

    private mutating func lost(_ reason: QuicCloseReason, verdict: ServerCertificateVerdict?, now: MonotonicTime) {
        sendAt = nil
        helloAgainAt = nil
        // A status is not sent again: the next hello opens with the current one. Nor a join of a
        // room the session is in: the next welcome re-joins every such room anyway.
        let joinedRooms = Set(rooms.map(\.name))
        let isRedundant: (ChatMessage) -> Bool = { message in
            message.type == MessageType.status.rawValue
                || (message.type == MessageType.join.rawValue
                    && joinedRooms.contains(ChatValidation.normalizeRoom(message.roomOrDefault) ?? message.roomOrDefault))
        }
        actions.append(.filesLost)
        outbox.connectionLost { !isRedundant($0) }
        outbox.removeWaiting(where: isRedundant)
        members.connectionLost()
        let server = rotation.current
        if case .unknown(let presented)? = verdict {
            if !everConnected { return setState(.unknownServer(fingerprint: presented)) }
            trustQuestion = (presented, reason)
            actions.append(.decideTrust(server, fingerprint: presented))
            return
        }
        if case .changed(let pinned, let presented)? = verdict {
            return setState(.stopped(SessionEnding(.certificateChanged(pinned: pinned, presented: presented), reason.description)))
        }
        if let ending = Self.finalEnding(reason, state: state) {
            // Several servers: one that fails TLS is left out, the others still serve.
            if ending.kind == .untrusted, rotation.servers.count > 1 { return leaveOut(reason: "\(server.label): \(ending.reason)", lost: reason, now: now) }
            return setState(.stopped(ending))
        }
        if !everConnected {
            if let patience = firstConnectionPatience, now - (firstAttemptAt ?? now) < patience {
                // Waiting for a server that is not up yet: each in turn, with a reconnect's backoff.
                firstRoundFailures = []
                rotation.advance()
                return retry(reason, delay: rotation.backoff(using: &random), now: now)
            }
            // The first round: each server once, in order, at once; the end only when none answered.
            firstRoundFailures.append(rotation.servers.count > 1 ? "\(server.label): \(reason.description)" : reason.description)
            guard firstRoundFailures.count + rotation.leftOutCount < rotation.servers.count, rotation.advance() else {
                return setState(.stopped(SessionEnding(.unreachable, firstRoundFailures.joined(separator: "; "))))
            }
            return retry(reason, delay: .zero, now: now)
        }
        rotation.advance()
        retry(reason, delay: rotation.backoff(using: &random), now: now)
    }

    /// Connects again after `delay`, to the rotation's current server.
    mutating func retry(_ reason: QuicCloseReason, delay: TimeSpan, now: MonotonicTime) {
        setState(.reconnecting(attempt: max(1, rotation.attempt), reason: reason.description))
        reconnectAt = now + delay
    }

    /// The current server is left out for the rest of the run (said as a problem); the session
    /// goes on with the next one, or ends, untrusted, when none is left.
    mutating func leaveOut(reason: String, lost: QuicCloseReason, now: MonotonicTime) {
        actions.append(.problem(reason + "; not using it"))
        guard rotation.leaveOut() else {
            return setState(.stopped(SessionEnding(.untrusted, rotation.servers.count > 1 ? "no server left that is trusted (\(reason))" : reason)))
        }
        if everConnected { rotation.countAttempt() }
        retry(lost, delay: .milliseconds(everConnected ? 500 : 0), now: now)
    }

    /// The closes that end the session instead of a reconnect (a first connection that never got
    /// its `welcome` ends it too, once every server was tried). A person's client comes back from
    /// everything else, its own misbehaviour included (``ConnectionLoss/misbehaviour``).
    static func finalEnding(_ reason: QuicCloseReason, state: SessionState) -> SessionEnding? {
        switch ConnectionLoss(reason) {
        case .untrusted: return SessionEnding(.untrusted, reason.description)
        case .removed: return SessionEnding(.closed, reason.description)
        case .transient, .misbehaviour: break
        }
        if case .refused(let code, let text) = state { return SessionEnding(.closed, "\(code): \(text)") }
        return nil
    }
}
