import ChatClientKit
import ChatProtocol
import QuicEngine

/// What the clients receive: their own joins and parts, acks and errors, and the load itself,
/// checked for latency, loss, duplicates and order.
extension LoadGenerator {
    func receive(_ message: ChatMessage, for client: LoadClient) {
        if let seq = message.resumeSeq, message.room == client.room { client.lastSeq = max(client.lastSeq ?? seq, seq) }
        guard message.replay != true else {
            // Replayed history: at a first join it is from before the client's membership (not
            // counted); after a move it is what the room had while the client was away.
            if client.state == .moving, message.type == "msg" { delivered(message, to: client, replayed: true) }
            return
        }
        switch message.type {
        case "msg":
            delivered(message, to: client)
        case "ack":
            acknowledged(message, by: client)
        case "typing":
            typingArrived(message)
        case "joined" where message.room == client.room && message.sender == client.session.assignedNick:
            guard let seq = message.seq else { return }
            if client.state == .connecting {
                joined(client, seq: seq)
            } else if client.state == .moving {
                rejoined(client)
            }
        case "left" where client.state == .leaving && message.room == client.room
            && message.sender == client.session.assignedNick:
            guard let seq = message.seq else { return }
            left(client, seq: seq)
        case "error":
            if client.state == .moving, message.id == nil, ChatSession.isRefusedForNow(message) {
                let session = client.session
                return session.sayHelloAgain(on: loop) { [unowned self, unowned client] in
                    client.state == .moving && session === client.session && phase != .done
                }
            }
            if message.code == ErrorCode.rateLimited.rawValue {
                stats.rateLimited += 1
            } else {
                stats.errors[message.code ?? "unknown", default: 0] += 1
            }
            guard let id = message.id.flatMap({ Int($0) }), client.pending[id] != nil else { return }
            // Not stored now, or not known to be: the same id again later (a stored one is
            // acknowledged with its seq, never stored twice). Never dropped.
            if message.code == ErrorCode.unavailable.rawValue { return resendLater(id, of: client) }
            // Refused for good: lost to the run, which then fails.
            stats.refused += 1
            settled(id, of: client)
            if client.pending.removeValue(forKey: id)?.measured == true { stats.pendingMeasured -= 1 }
        default:
            break
        }
    }

    /// A message answered `unavailable` goes again with its id in the client's next resend round
    /// (``LoadClient/unavailablePending``); a client moving meanwhile sends it from its new
    /// connection instead.
    private func resendLater(_ id: Int, of client: LoadClient) {
        stats.unavailable += 1
        client.unavailablePending.insert(id)
        client.pending[id]?.awaitingResend = true
        guard !client.resendScheduled else { return }
        client.resendScheduled = true
        let session = client.session
        loop.schedule(at: .now() + .milliseconds(min(2000, 100 << min(client.resendRounds, 5)))) { [weak self, weak client] in
            guard let self, let client else { return }
            client.resendScheduled = false
            guard client.session === session, client.state == .joined || client.state == .leaving else { return }
            client.resendRounds += 1
            for (id, pending) in client.pending.sorted(by: { $0.key < $1.key }) where pending.awaitingResend {
                client.pending[id]?.awaitingResend = false
                stats.resent += 1
                session.send(.msg(room: client.room, text: pending.text, id: String(id)))
            }
        }
    }

    /// A message of the client has its final answer: once none answered `unavailable` waits, the
    /// client takes new messages again and its resend backoff starts over.
    private func settled(_ id: Int, of client: LoadClient) {
        guard client.unavailablePending.remove(id) != nil, client.unavailablePending.isEmpty else { return }
        client.resendRounds = 0
    }

    private func acknowledged(_ message: ChatMessage, by client: LoadClient) {
        guard let id = message.id.flatMap({ Int($0) }), let pending = client.pending.removeValue(forKey: id) else { return }
        settled(id, of: client)
        stats.recordAcknowledged(measured: pending.measured)
        guard pending.measured, let seq = message.seq else { return }
        ledger.recordAcknowledged(room: message.room ?? client.room, seq: seq, sender: client.id)
    }

    /// A load message arrived, live or (`replayed`) in the replay of a re-join after a move. A
    /// replayed one is never the client's own (the server does not echo those live either) nor
    /// from before its membership; LoadStatistics.recordDelivery says how it is counted.
    private func delivered(_ message: ChatMessage, to client: LoadClient, replayed: Bool = false) {
        guard client.state == .joined || client.state == .leaving || client.state == .moving, let seq = message.seq,
              let load = LoadMessageText(decoding: message.text) else { return }
        if replayed, message.sender == client.nick || seq <= client.joinedSeq ?? .max { return }
        stats.recordDelivery(of: load, key: seq, measured: isMeasured(MonotonicTime(nanoseconds: load.intended)), replayed: replayed,
                             seen: &client.seen, lastSeqFromSlot: &client.lastSeqFromSlot, now: .now())
    }

    /// A relayed typing indicator is timed against the last one of its kind its sender sent.
    private func typingArrived(_ message: ChatMessage) {
        stats.typingReceivedAll += 1
        guard let sender = byNick[message.sender], let sent = sender.lastTyping[message.text == "start"], sent.measured else {
            return
        }
        stats.typingReceived += 1
        stats.typingLatency.record((MonotonicTime.now() - sent.intended).nanoseconds)
    }
}
