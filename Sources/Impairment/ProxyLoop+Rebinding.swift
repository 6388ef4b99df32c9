import EventRuntime

extension ProxyLoop {
    func runScheduledRebind(now: MonotonicTime) {
        guard let due = nextScheduledRebind, let interval = configuration.rebindInterval, now >= due else { return }
        var following = due + interval
        // After a stall, skip the missed periods instead of rebinding in a burst.
        while following <= now { following += interval }
        nextScheduledRebind = following
        _ = rebind(clientIndices: Array(clients.indices), changeAddress: configuration.rebindChangesAddress)
    }

    /// Rebinds each client; returns how many succeeded and the first error.
    func rebind(clientIndices: [Int], changeAddress: Bool) -> (rebound: Int, error: (any Error)?) {
        var rebound = 0
        var firstError: (any Error)?
        for index in clientIndices {
            do {
                try rebind(clientIndex: index, changeAddress: changeAddress)
                rebound += 1
            } catch {
                log("udp-impair: rebinding client \(clients[index].address) failed: \(error)")
                firstError = firstError ?? error
            }
        }
        return (rebound, firstError)
    }

    /// Replaces a client's upstream socket, as a NAT that lost its mapping or a phone that moved
    /// from Wi-Fi to cellular would: the server sees a new source port (and with `changeAddress`
    /// a new 127.0.0.x address) and must answer there. The new socket is opened before the old one
    /// closes, so the kernel cannot hand back the same port.
    private func rebind(clientIndex index: Int, changeAddress: Bool) throws {
        let old = clients[index].upstream
        let source = changeAddress ? loopbackCycle.next() : old.localAddress.withPort(0)
        let replacement = try UDPSocket(bindingTo: source, bufferBytes: ProxyLoop.upstreamBufferBytes, overridingSystemLimit: true)
        do {
            try watch(replacement, of: index)
        } catch {
            replacement.close()
            throw error
        }
        // Replies that reached the old mapping before the switch still count as delivered.
        receiveFromServer(clientIndex: index)
        loop?.unwatch(old.descriptor)
        old.close()
        clients[index].upstream = replacement
        clients[index].statistics.upstreamAddress = replacement.localAddress
        clients[index].statistics.rebinds += 1
        rebinds += 1
        log("udp-impair: client \(clients[index].address) rebound from \(old.localAddress) to \(replacement.localAddress)")
    }
}
