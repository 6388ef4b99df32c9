import ChatProtocol
import QuicEngine

/// What the clients receive: their own joins and parts, acks and errors, and the load itself,
/// checked for latency, loss, duplicates and order.
extension LoadGenerator {
    func receive(_ message: ChatMessage, for client: LoadClient) {
        guard message.replay != true else { return }
        switch message.type {
        case "msg":
            delivered(message, to: client)
        case "ack":
            acknowledged(message, by: client)
        case "typing":
            typingArrived(message)
        case "joined" where client.state == .connecting && message.room == client.room
            && message.sender == client.session.assignedNick:
            guard let seq = message.seq else { return }
            joined(client, seq: seq)
        case "left" where client.state == .leaving && message.room == client.room
            && message.sender == client.session.assignedNick:
            guard let seq = message.seq else { return }
            left(client, seq: seq)
        case "error":
            if message.code == ErrorCode.rateLimited.rawValue {
                stats.rateLimited += 1
            } else {
                stats.errors[message.code ?? "unknown", default: 0] += 1
            }
            if let id = message.id.flatMap({ Int($0) }), let pending = client.pending.removeValue(forKey: id), pending.measured {
                stats.pendingMeasured -= 1
            }
        default:
            break
        }
    }

    private func acknowledged(_ message: ChatMessage, by client: LoadClient) {
        guard let id = message.id.flatMap({ Int($0) }), let pending = client.pending.removeValue(forKey: id) else { return }
        stats.recordAcknowledged(measured: pending.measured)
        guard pending.measured, let seq = message.seq else { return }
        ledger.recordAcknowledged(room: message.room ?? client.room, seq: seq, sender: client.id)
    }

    private func delivered(_ message: ChatMessage, to client: LoadClient) {
        guard client.state == .joined || client.state == .leaving, let seq = message.seq,
              let load = LoadMessageText(decoding: message.text) else { return }
        stats.recordDelivery(of: load, key: seq, measured: isMeasured(QuicTime(nanoseconds: load.intended)), seen: &client.seen,
                             lastSeqFromSlot: &client.lastSeqFromSlot, now: .now())
    }

    /// A relayed typing indicator is timed against the last one of its kind its sender sent.
    private func typingArrived(_ message: ChatMessage) {
        stats.typingReceivedAll += 1
        guard let sender = byNick[message.sender], let sent = sender.lastTyping[message.text == "start"], sent.measured else {
            return
        }
        stats.typingReceived += 1
        stats.typingLatency.record((QuicTime.now() - sent.intended).nanoseconds)
    }
}
