import CLIOptions
import ChatProtocol
import ChatServerCore
import QuicEngine

extension ChatServerApp {
    /// Carries out the core's actions in order.
    func perform(_ actions: [ServerAction]) {
        guard !actions.isEmpty else { return }
        defer {
            converted.removeAll(keepingCapacity: true)
            lastConverted = nil
        }
        // Each action is matched where it lies in the buffer: `for action in actions` (and even
        // `switch actions[index]`) copied every action out whole, an outlined copy through all of
        // ServerAction's cases and then its destruction, a tenth of the server's instructions in
        // a fan-out (docs/PERFORMANCE.md, "Actions matched in place").
        actions.withUnsafeBufferPointer { actions in
            for index in actions.indices {
                switch actions[index] {
                case .send(let client, let kind, let payload, let live):
                    guard let link = links[client], !link.closedByServer else { continue }
                    metrics.delivered.add(payload.type)
                    metrics.deliveredTotal &+= 1
                    send(engineBytes(payload), live: live, on: kind == .chat ? ClientLink.chatStream : ClientLink.presenceStream, link: link)
                case .datagram(let client, let payload):
                    // Typing is best effort: a full queue or a vanished client loses it silently.
                    guard let link = links[client] else { continue }
                    do {
                        try link.connection.sendDatagram(payload.bytes)
                        metrics.datagramsRelayed += 1
                    } catch {
                        metrics.datagramsDropped += 1
                    }
                case .close(let client, let code, let reason):
                    guard let link = links[client] else { continue }
                    link.closedByServer = true
                    metrics.closes[code, default: 0] += 1
                    closeAfterReplies(link, code: code, reason: reason, deadline: .now() + ChatServerApp.closeGrace)
                    logger.log(.info, "closing", ["client": "\(client)", "code": code.name, "reason": reason])
                case .password(let task):
                    passwordWorkers.run(task)
                case .log(let level, let event, let fields):
                    logger.log(level, event, fields)
                case .consoleLine(let line):
                    Console.line(line)
                case .endFileStream, .receiveUpload, .abandonUpload, .sendDownload, .discardFileBytes:
                    performFileAction(actions[index])
                case .appendRoomEvent, .readRoomEvents, .followRoom, .unfollowRoom, .readRoomState, .writePolicy, .loadAccounts, .writeAccount,
                     .claimHello, .claimNick, .recordPeer,
                     .releaseIdentity, .lookUpNick, .lookUpDevice, .lookUpDirectReceipt, .storeDirectReceipt, .sendToNode, .publishMember, .publishTyping,
                     .reserveLoginAttempt, .releaseLoginAttempt, .loadFiles, .storeFileRecord,
                     .writePartialUploads:
                    if localStore != nil { performLocalStoreAction(actions[index]) } else { performClusterAction(actions[index]) }
                }
            }
        }
        // After the batch, not amid it: the `left` of a slow consumer must not overtake the
        // deliveries of the events before it to the other members.
        while !slowConsumersToDepart.isEmpty {
            let client = slowConsumersToDepart.removeFirst()
            perform(state.disconnected(client, reason: "slow-consumer", now: unixMilliseconds()))
        }
    }

    /// How long a client the core closed may take to acknowledge the replies queued before the close.
    static let closeGrace = TimeSpan.milliseconds(500)

    /// Closes a connection the core is done with once the replies already queued for it are
    /// acknowledged (the `error`s that explain a FLOODING or PROTOCOL_ERROR close, acks of
    /// messages accepted in the same batch), or at `deadline`: the engine drops queued stream
    /// data on close, so closing at once would lose them. Nothing new is sent meanwhile
    /// (`closedByServer`), and the core has already forgotten the client.
    private func closeAfterReplies(_ link: ClientLink, code: CloseCode, reason: String, deadline: MonotonicTime) {
        let connection = link.connection
        guard !connection.isClosed else { return }
        let flushed = link.waiting.values.allSatisfy(\.isEmpty)
            && connection.bufferedAmount(ClientLink.chatStream) == 0 && connection.bufferedAmount(ClientLink.presenceStream) == 0
        guard flushed || MonotonicTime.now() >= deadline else {
            loop.schedule(at: .now() + .milliseconds(5)) { [unowned self] in
                closeAfterReplies(link, code: code, reason: reason, deadline: deadline)
            }
            return
        }
        connection.close(applicationCode: code.rawValue, reason: reason)
    }

    private func engineBytes(_ payload: SharedPayload) -> OutboundBytes {
        // A broadcast is a run of actions with the same payload: the last one answers it.
        if let last = lastConverted, last.payload === payload { return last.bytes }
        let key = ObjectIdentifier(payload)
        let bytes = converted[key] ?? OutboundBytes(payload.bytes)
        converted[key] = bytes
        lastConverted = (payload, bytes)
        return bytes
    }

    /// Queues bytes on a stream; what the QUIC buffer cannot take waits here. A client is closed
    /// with SLOW_CONSUMER, so nobody else waits for it, when its waiting live bytes pass `--sendq`
    /// or its waiting replay and history bytes pass `--replay-limit` (PROTOCOL.md sections 5, 12).
    private func send(_ bytes: OutboundBytes, live: Bool, on stream: QuicStreamID, link: ClientLink) {
        let connection = link.connection
        if link.waiting[stream]?.isEmpty ?? true, (try? connection.write(bytes, to: stream)) == true { return }
        guard !connection.isClosed else { return }
        link.waiting[stream, default: ClientLink.FIFO()].append(.init(bytes: bytes, live: live))
        if live {
            link.waitingLiveBytes += bytes.count
            if link.waitingLiveBytes > options.sendQueueLimit { closeSlowConsumer(link, reason: "more than \(options.sendQueueLimit) live bytes waiting") }
        } else {
            link.waitingBacklogBytes += bytes.count
            if link.waitingBacklogBytes > options.replayLimit {
                closeSlowConsumer(link, reason: "more than \(options.replayLimit) replay and history bytes waiting")
            }
        }
    }

    private func closeSlowConsumer(_ link: ClientLink, reason: String) {
        let connection = link.connection
        link.closedByServer = true
        link.waiting.removeAll()
        metrics.closes[.slowConsumer, default: 0] += 1
        connection.close(applicationCode: CloseCode.slowConsumer.rawValue, reason: reason)
        logger.log(.warning, "closing", ["client": "\(connection.id)", "code": CloseCode.slowConsumer.name, "reason": reason])
        slowConsumersToDepart.append(connection.id)
    }

    func drainWaiting(_ link: ClientLink, stream: QuicStreamID) {
        while let next = link.waiting[stream]?.first {
            guard (try? link.connection.write(next.bytes, to: stream)) == true else { return }
            link.waiting[stream]?.removeFirst()
            if next.live { link.waitingLiveBytes -= next.bytes.count } else { link.waitingBacklogBytes -= next.bytes.count }
        }
    }
}
