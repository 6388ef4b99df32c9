import EventRuntime

extension ProxyLoop {
    func receiveFromClients() {
        let now = MonotonicTime.now()
        for _ in 0..<ProxyLoop.receiveBatchLimit {
            let received: (count: Int, source: SocketAddress)?
            do {
                received = try listener.receive(into: receiveBuffer)
            } catch {
                log("udp-impair: \(error)")
                return
            }
            guard let (count, source) = received else { return }
            guard let clientIndex = clientIndex(for: source) else {
                directions[TrafficDirection.up.rawValue].statistics.receivedPackets += 1
                directions[TrafficDirection.up.rawValue].statistics.receivedBytes += count
                directions[TrafficDirection.up.rawValue].statistics.droppedBySendError += 1
                continue
            }
            arrive(.up, clientIndex: clientIndex, count: count, now: now)
        }
    }

    func receiveFromServer(clientIndex: Int) {
        let now = MonotonicTime.now()
        let upstream = clients[clientIndex].upstream
        for _ in 0..<ProxyLoop.receiveBatchLimit {
            let received: (count: Int, source: SocketAddress)?
            do {
                received = try upstream.receive(into: receiveBuffer)
            } catch {
                log("udp-impair: \(error)")
                return
            }
            guard let (count, source) = received else { return }
            guard source == configuration.serverAddress else {
                // A NAT only lets the peer a mapping was made for answer through it.
                directions[TrafficDirection.down.rawValue].statistics.receivedPackets += 1
                directions[TrafficDirection.down.rawValue].statistics.receivedBytes += count
                directions[TrafficDirection.down.rawValue].statistics.droppedFromUnknownSource += 1
                if directions[TrafficDirection.down.rawValue].statistics.droppedFromUnknownSource == 1 {
                    // Once only: usually a server bound to 0.0.0.0 answering from another address.
                    log("udp-impair: dropping datagrams from \(source) to client \(clients[clientIndex].address)'s upstream socket: only \(configuration.serverAddress) (--server) may answer")
                }
                continue
            }
            arrive(.down, clientIndex: clientIndex, count: count, now: now)
        }
    }

    /// Reads what the server sends to client `index` through `upstream` (its socket now).
    func watch(_ upstream: UDPSocket, of index: Int) throws {
        try loop?.watchReadable(upstream.descriptor) { [unowned self] in receiveFromServer(clientIndex: index) }
    }

    /// The client table entry for `address`, opening its upstream socket on first sight.
    private func clientIndex(for address: SocketAddress) -> Int? {
        if let existing = clientIndexByAddress[address] { return existing }
        let upstream: UDPSocket
        do {
            upstream = try UDPSocket(
                bindingTo: configuration.initialUpstreamAddress, bufferBytes: ProxyLoop.upstreamBufferBytes,
                overridingSystemLimit: true)
        } catch {
            log("udp-impair: no upstream socket for client \(address): \(error)")
            return nil
        }
        let index = clients.count
        do {
            try watch(upstream, of: index)
        } catch {
            log("udp-impair: no upstream socket for client \(address): \(error)")
            upstream.close()
            return nil
        }
        clients.append(ClientSession(address: address, upstream: upstream))
        clientIndexByAddress[address] = index
        return index
    }

    /// Counts a packet now in `receiveBuffer`, then impairs it: sent at once when it has no
    /// delay and no corruption, otherwise copied into the timer heap.
    private func arrive(_ direction: TrafficDirection, clientIndex: Int, count: Int, now: MonotonicTime) {
        let lane = direction.rawValue
        directions[lane].statistics.receivedPackets += 1
        directions[lane].statistics.receivedBytes += count
        switch direction {
        case .up:
            clients[clientIndex].statistics.upPackets += 1
            clients[clientIndex].statistics.upBytes += count
        case .down:
            clients[clientIndex].statistics.downPackets += 1
            clients[clientIndex].statistics.downBytes += count
        }
        if blackholes.isActive(at: now - startTime) {
            directions[lane].statistics.droppedByBlackhole += 1
            return
        }
        let plan = directions[lane].plan(packetSize: count, now: now)
        let received = UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<count])
        for copyIndex in 0..<plan.count {
            let copy = plan[copyIndex]
            if copy.releaseAt <= now && !copy.corrupt {
                transmit(direction, clientIndex: clientIndex, bytes: received, now: now)
                continue
            }
            var bytes = [UInt8](received)
            if copy.corrupt {
                bytes.withUnsafeMutableBytes { directions[lane].corrupt($0) }
            }
            pending.insert(ScheduledPacket(direction: direction, clientIndex: clientIndex, bytes: bytes), deadline: copy.releaseAt)
            directions[lane].statistics.queuedPackets += 1
            directions[lane].statistics.queuedBytes += count
        }
    }

    /// Sends every packet whose time has come, unless a blackhole is open right now.
    func releaseDuePackets(now: MonotonicTime) {
        guard let earliest = pending.earliestDeadline, earliest <= now else { return }
        let blackholed = blackholes.isActive(at: now - startTime)
        while let packet = pending.popDue(now: now) {
            let lane = packet.direction.rawValue
            directions[lane].statistics.queuedPackets -= 1
            directions[lane].statistics.queuedBytes -= packet.bytes.count
            if blackholed {
                directions[lane].statistics.droppedByBlackhole += 1
                continue
            }
            packet.bytes.withUnsafeBytes { transmit(packet.direction, clientIndex: packet.clientIndex, bytes: $0, now: now) }
        }
    }

    /// Up goes from the client's current upstream socket to the server; down goes from the
    /// listen socket to the client.
    private func transmit(_ direction: TrafficDirection, clientIndex: Int, bytes: UnsafeRawBufferPointer, now: MonotonicTime) {
        let lane = direction.rawValue
        let sent: Bool
        do {
            switch direction {
            case .up: sent = try clients[clientIndex].upstream.send(bytes, to: configuration.serverAddress)
            case .down: sent = try listener.send(bytes, to: clients[clientIndex].address)
            }
        } catch {
            // Rate-limited: a dead route would otherwise print a line per packet.
            if lastSendErrorLog.map({ now - $0 >= .seconds(1) }) ?? true {
                lastSendErrorLog = now
                log("udp-impair: \(error)")
            }
            sent = false
        }
        guard sent else {
            directions[lane].statistics.droppedBySendError += 1
            return
        }
        directions[lane].statistics.forwardedPackets += 1
        directions[lane].statistics.forwardedBytes += bytes.count
        switch direction {
        case .up:
            clients[clientIndex].statistics.upForwardedPackets += 1
            clients[clientIndex].statistics.upForwardedBytes += bytes.count
        case .down:
            clients[clientIndex].statistics.downForwardedPackets += 1
            clients[clientIndex].statistics.downForwardedBytes += bytes.count
        }
    }
}
