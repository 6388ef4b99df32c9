import CLIOptions
import Glibc
import QuicIO

/// `chat-bot irc-load`: the load of `chat-bot load` against an IRC server over TLS over TCP, for
/// a side-by-side comparison (scripts/bench-irc.sh). N clients register and join channels (client
/// i joins #<prefix>(i mod R)), then PRIVMSGs go out on `LoadRun`'s open-loop schedule,
/// round-robin over the clients, each text stamped with its intended send time. Latency is
/// measured at every other member; the sender's own echo (IRCv3 echo-message) is its
/// acknowledgement and is counted apart. All clients share one event loop thread.
final class IRCLoadGenerator: LoadRun {
    static let capabilities = ["echo-message", "message-tags", "server-time"]

    let server: SocketAddress
    let tls: TLSStreamContext
    /// Each slot's client (irc-load has no churn: a slot keeps its client).
    var clients: [IRCLoadClient?]
    var senderCursor = 0
    /// The negotiated TLS of the first connection, printed once.
    var negotiated: String?
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)

    init(options: LoadOptions) throws {
        guard let server = SocketAddress.resolve(host: options.connection.host, port: options.connection.port) else {
            throw UsageError("cannot resolve --host \(options.connection.host)")
        }
        self.server = server
        tls = try TLSStreamContext(TLSStreamConfiguration(trustedCAPath: options.connection.ca,
                                                          insecureSkipVerification: options.connection.insecure,
                                                          serverName: options.connection.host))
        clients = [IRCLoadClient?](repeating: nil, count: options.clients)
        try super.init(options: options, name: "chat-bot irc-load", loop: try EventLoop())
    }

    deinit { readBuffer.deallocate() }

    func channel(forSlot slot: Int) -> String { "#\(options.roomPrefix)\(slot % options.rooms)" }

    /// A message's key in its channel, unique over the run: the ledger's stand-in for the room
    /// sequence numbers qchat has and IRC lacks. Per-sender seqs start at 1.
    func key(slot: Int, seq: Int) -> Int64 { Int64(seq - 1) * Int64(options.clients) + Int64(slot) }

    // MARK: LoadRun

    override func startFirstConnection(slot: Int) {
        let nick = "\(options.nickPrefix)\(slot)"
        let connection: IRCConnection
        do {
            connection = try IRCConnection(to: server, tls: tls, loop: loop, readBuffer: readBuffer)
        } catch {
            Console.error("\(name): cannot connect: \(error)")
            return firstConnectionEnded(joined: false)
        }
        let client = IRCLoadClient(slot: slot, nick: nick, channel: channel(forSlot: slot), connection: connection, connectStarted: .now())
        clients[slot] = client
        connection.onEstablished = { [unowned self, unowned client] description in register(client, tls: description) }
        connection.onMessage = { [unowned self, unowned client] message in receive(message, for: client) }
        connection.onClose = { [unowned self, unowned client] reason in closed(client, reason) }
    }

    override func failClientsStillConnecting() {
        for case let client? in clients where client.state != .joined && client.state != .failed {
            client.state = .failed
            client.connection.close(reason: "connect timeout")
            stats.initialFailed += 1
        }
    }

    override func sendMessage(intended: MonotonicTime, now: MonotonicTime) {
        guard let client = LoadRun.nextReady(in: clients, after: &senderCursor, where: { $0.state == .joined }) else {
            stats.skippedNoClient += 1
            return
        }
        client.nextSeq += 1
        let measured = isMeasured(intended)
        let text = LoadMessageText(slot: client.slot, seq: client.nextSeq, intended: intended.nanoseconds)
        client.pending[client.nextSeq] = measured
        client.connection.send(IRCMessage(command: "PRIVMSG", parameters: [client.channel, text.encoded(size: options.size)]))
        stats.recordSent(measured: measured)
    }

    override var receivers: [DeliveryLedger.Receiver] { clients.compactMap { $0?.receiver } }

    override var joinedCount: Int { clients.count { $0?.state == .joined } }

    override func quitAll() {
        for case let client? in clients where client.state != .failed && client.state != .gone {
            client.state = .gone
            client.connection.send(IRCMessage(command: "QUIT", parameters: ["load done"]))
            client.connection.close(reason: "quit")
        }
    }

    override func progressExtras() -> [String] {
        stats.errors.isEmpty ? [] : ["errors \(stats.errors.values.reduce(0, +))"]
    }

    // MARK: Connections

    /// TLS is up: ask for the capabilities and register in one flight (the server handles CAP
    /// REQ before CAP END, so nothing waits for a round trip).
    private func register(_ client: IRCLoadClient, tls description: String) {
        if negotiated == nil {
            negotiated = description
            Console.error("\(name): TLS \(description)")
        }
        client.state = .registering
        client.connection.send(IRCMessage(command: "CAP", parameters: ["REQ", IRCLoadGenerator.capabilities.joined(separator: " ")]))
        client.connection.send(IRCMessage(command: "NICK", parameters: [client.nick]))
        client.connection.send(IRCMessage(command: "USER", parameters: [client.nick, "0", "*", client.nick]))
        client.connection.send(IRCMessage(command: "CAP", parameters: ["END"]))
    }

    /// Its own JOIN arrived: a member from now on.
    func joined(_ client: IRCLoadClient) {
        client.state = .joined
        stats.connectTime.record((MonotonicTime.now() - client.connectStarted).nanoseconds)
        if phase == .connecting { firstConnectionEnded(joined: true) }
    }

    /// Gives up a client: it counts as failed (before the run) or as closed unexpectedly.
    func fail(_ client: IRCLoadClient, _ reason: String) {
        let previous = client.state
        guard previous != .failed, previous != .gone else { return }
        client.state = .failed
        client.connection.close(reason: reason)
        if stats.firstCloseReasons.count < 5 { stats.firstCloseReasons.append("\(client.nick): \(reason)") }
        if previous == .joined {
            stats.closedUnexpectedly += 1
        } else if phase == .connecting {
            firstConnectionEnded(joined: false)
        }
    }

    private func closed(_ client: IRCLoadClient, _ reason: String) { fail(client, reason) }
}
