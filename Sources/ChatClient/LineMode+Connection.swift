import CLIOptions
import ChatClientKit
import QuicEngine

/// The connection as line mode reports it (on standard error), trust on first use (asked on
/// standard error, answered by the next input line), and the end of the run.
extension LineMode {
    func changed(_ state: ResilientSession.State) {
        lastProgress = .now()
        let several = session.servers.count > 1
        let server = several ? "any of \(options.serverList)" : "\(options.host):\(options.port)"
        let next = several ? " to \(session.currentServer.label)" : ""
        switch state {
        case .reconnecting(_, let reason) where !session.everConnected:
            complain("\(reason); trying\(next)")
        case .reconnecting(attempt: 1, let reason):
            complain("connection lost (\(reason)); reconnecting\(next)")
        case .reconnecting(let attempt, let reason):
            complain("reconnect attempt \(attempt - 1) failed (\(reason)); trying again\(next)")
        case .connected:
            if hasBeenConnected {
                complain("reconnected\(next)")
            } else if several {
                complain("connected\(next)")
            }
            hasBeenConnected = true
            releaseInput()
            if inputEnded { settle() }
        case .refused(let code, let text):
            complain("\(several ? session.currentServer.label : server) refused the nick or room (\(code)): \(text)")
            status = 1
            stop()
        case .stopped(let ending):
            switch ending.kind {
            case .quit:
                if quitMessage != nil { loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in loop.stop() } }
                return
            case .unreachable: complain("could not reach \(server) (\(ending.reason))")
            case .untrusted: complain("cannot trust \(server): \(ending.reason) (is --ca the CA that signed its certificate?)")
            case .certificateChanged(let pinned, let presented):
                Console.error(trust.changedMessage(pinned: pinned, presented: presented, server: session.currentServer.spec))
            case .closed: complain("connection closed: \(ending.reason)")
            }
            status = 1
            loop.stop()
        case .unknownServer(let fingerprint):
            unknownServer(fingerprint)
        case .connecting:
            break
        }
    }

    // MARK: Trust on first use

    /// Asked on stderr; the next line of input answers (`yes` trusts). `--trust-on-first-use`
    /// answers by itself.
    func unknownServer(_ fingerprint: String) {
        if options.trustOnFirstUse {
            if let refusal = trust.refusalWithoutAsking(fingerprint, server: session.currentServer.spec) { return giveUp("chat-client: \(refusal)") }
            return trusted(fingerprint)
        }
        for line in trust.question(for: fingerprint, server: session.currentServer.spec) { Console.error("chat-client: \(line)") }
        awaitedTrust = fingerprint
        releaseInput()
    }

    func answered(trust answer: String, _ fingerprint: String) {
        awaitedTrust = nil
        guard ServerTrust.isYes(answer) else { return giveUp("chat-client: not trusted; nothing was sent to \(ServerTrust.name(session.currentServer.spec))") }
        trusted(fingerprint)
    }

    func trusted(_ fingerprint: String) {
        Console.error("chat-client: \(trust.accept(fingerprint, for: session.currentServer.spec))")
        session.trust(fingerprint: fingerprint)
    }

    func giveUp(_ message: String) {
        Console.error(message)
        status = 1
        session.quit()
        loop.stop()
    }

    // MARK: Ending

    func endOfInput() {
        guard !inputEnded else { return }
        inputEnded = true
        if awaitedTrust != nil {
            awaitedTrust = nil
            return giveUp("chat-client: not trusted (no answer: the input ended); nothing was sent to \(ServerTrust.name(session.currentServer.spec))")
        }
        lastProgress = .now()
        settle()
    }

    /// Quits once everything asked for is answered, or when nothing has moved for a minute.
    func settle() {
        if let settleTimer { loop.cancel(settleTimer) }
        settleTimer = nil
        if session.isSettled && session.files.transfers.isEmpty { return stop() }
        if MonotonicTime.now() - lastProgress >= Self.stallTimeout {
            let count = session.pendingMessages.count
            if count > 0 { complain("\(count) message(s) never acknowledged") }
            status = 1
            return stop()
        }
        settleTimer = loop.schedule(at: .now() + .milliseconds(200)) { [unowned self] in settle() }
    }

    func stop() {
        guard session.isConnected else { return loop.stop() }
        // With a quit message the server closes; the session says `stopped` then (or on its own after a short wait).
        if let quitMessage, !quitMessage.isEmpty { return session.quit(message: quitMessage) }
        session.quit()
        loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in loop.stop() }
    }
}
