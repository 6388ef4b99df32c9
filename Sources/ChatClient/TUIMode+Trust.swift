import ChatClientKit

/// Trust on first use in the full-screen client (``ServerTrust``): the question is shown in the
/// room, the next line typed answers it (`yes` trusts), and nothing else is sent meanwhile.
extension TUIMode {
    func unknownServer(_ fingerprint: String) {
        if options.trustOnFirstUse {
            if let refusal = trust.refusalWithoutAsking(fingerprint, server: session.currentServer.spec) { return giveUpTrust(refusal) }
            return trusted(fingerprint)
        }
        model.connection = .disconnected(reason: "unknown server certificate")
        for line in trust.question(for: fingerprint, server: session.currentServer.spec) { note(line, in: currentRoomName) }
        awaitingTrust = fingerprint
    }

    /// A line typed while the question is open.
    func answered(trust answer: String) {
        guard let fingerprint = awaitingTrust else { return }
        awaitingTrust = nil
        guard ServerTrust.isYes(answer) else { return giveUpTrust("not trusted; nothing was sent to \(ServerTrust.name(session.currentServer.spec))") }
        trusted(fingerprint)
    }

    private func trusted(_ fingerprint: String) {
        note(trust.accept(fingerprint, for: session.currentServer.spec), in: currentRoomName)
        model.connection = .connecting
        session.trust(fingerprint: fingerprint)
    }

    private func giveUpTrust(_ message: String) {
        exitMessage = "chat-client: \(message)"
        status = 1
        session.quit()
        loop.stop()
    }
}
