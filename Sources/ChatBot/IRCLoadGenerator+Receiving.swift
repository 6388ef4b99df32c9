import QuicEngine

/// What the IRC clients receive: registration replies, their own JOIN, PINGs, errors, and the
/// load itself: the sender's echo as its acknowledgement, every other copy a delivery checked
/// for latency, loss, duplicates and order.
extension IRCLoadGenerator {
    func receive(_ message: IRCMessage, for client: IRCLoadClient) {
        switch message.command {
        case "PRIVMSG":
            privateMessage(message, for: client)
        case "PING":
            client.connection.send(IRCMessage(command: "PONG", parameters: message.parameters))
        case "CAP" where message.parameters.count >= 3 && message.parameters[1] == "NAK":
            fail(client, "the server refused the capabilities \(message.parameters[2]) (echo-message is needed to count acknowledgements)")
        case "001" where client.state == .registering:
            client.state = .joining
            client.connection.send(IRCMessage(command: "JOIN", parameters: [client.channel]))
        case "JOIN" where client.state == .joining && message.sourceNick == client.nick[...]
            && message.parameters.first == client.channel:
            joined(client)
        case "432", "433", "436", "437":
            fail(client, "nick \(client.nick) refused (\(message.command) \(message.parameters.last ?? ""))")
        case "ERROR":
            fail(client, "ERROR \(message.parameters.last ?? "")")
        default:
            // Other error replies (404 cannot send to channel, 405 too many channels, ...) are
            // counted: a measured message they stopped stays unacknowledged.
            if message.command.count == 3, let code = Int(message.command), (400..<600).contains(code) {
                stats.errors["irc \(message.command)", default: 0] += 1
            }
        }
    }

    private func privateMessage(_ message: IRCMessage, for client: IRCLoadClient) {
        guard client.state == .joined, message.parameters.count == 2, message.parameters[0] == client.channel,
              let load = LoadMessageText(decoding: message.parameters[1]) else { return }
        let key = key(slot: load.slot, seq: load.seq)
        if load.slot == client.slot {
            // echo-message: the server relayed our own PRIVMSG to the channel.
            guard let measured = client.pending.removeValue(forKey: load.seq) else { return }
            stats.recordAcknowledged(measured: measured)
            if measured { ledger.recordAcknowledged(room: client.channel, seq: key, sender: client.id) }
            return
        }
        stats.recordDelivery(of: load, key: key, measured: isMeasured(MonotonicTime(nanoseconds: load.intended)), seen: &client.seen,
                             lastSeqFromSlot: &client.lastSeqFromSlot, now: .now())
    }
}
