import EventRuntime
import Glibc

extension ProxyLoop {
    /// Carries out one command line and returns its one-line answer (nil for a blank line).
    func execute(_ line: String) -> String? {
        let command: ProxyCommand
        do {
            guard let parsed = try ProxyCommand(parsing: line) else { return nil }
            command = parsed
        } catch {
            return "ERROR \(error)"
        }
        let now = MonotonicTime.now()
        switch command {
        case .statistics:
            return snapshot(now: now).jsonLine
        case .rebind(let changeAddress, let client):
            let verb = changeAddress ? "rebind-address" : "rebind"
            var targets = Array(clients.indices)
            if let client {
                guard let index = clientIndexByAddress[client] else { return "ERROR no client \(client)" }
                targets = [index]
            }
            let result = rebind(clientIndices: targets, changeAddress: changeAddress)
            if let error = result.error { return "ERROR \(verb): \(error) (\(result.rebound) rebound)" }
            return "OK \(verb) \(result.rebound)"
        case .blackhole(let duration):
            blackholes.add(BlackholeWindow(start: now - startTime, duration: duration))
            return "OK blackhole \(duration.seconds)s"
        case .impairment(let setting):
            var up = directions[TrafficDirection.up.rawValue].profile
            var down = directions[TrafficDirection.down.rawValue].profile
            do {
                try setting.apply(up: &up, down: &down)
            } catch {
                return "ERROR \(error)"
            }
            directions[TrafficDirection.up.rawValue].update(up)
            directions[TrafficDirection.down.rawValue].update(down)
            return "OK \(line.trimmingWhitespace())"
        case .quit:
            stopping = true
            return "OK quit"
        case .help:
            return "OK \(ProxyCommand.summary)"
        }
    }

    /// Commands from other threads (tests, embedding programs).
    func handleRequests() {
        for request in control.takeRequests() {
            switch request {
            case .command(let line, let reply):
                reply.fulfil(execute(line) ?? "")
            case .statistics(let condition, let deadline, let reply):
                waiters.append((condition, deadline, reply))
            }
        }
    }

    /// Watches the command input on the loop; a regular file or /dev/null, which epoll refuses,
    /// is always readable, so it is read a chunk per loop turn instead (as poll(2) would report it).
    func watchCommands(_ descriptor: Int32, on loop: EventLoop) {
        do {
            try loop.watchReadable(descriptor) { [unowned self] in readCommands() }
        } catch {
            commandInputIsPolled = true
            loop.schedule(at: .now()) { [unowned self] in pollCommands() }
        }
    }

    private func pollCommands() {
        readCommands()
        if commandInput != nil { loop?.schedule(at: .now()) { [unowned self] in pollCommands() } }
    }

    /// Reads what stdin has (the loop said it is readable, so one read(2) does not block even on
    /// a blocking descriptor, which is left blocking because it may be a terminal shared with a
    /// shell) and answers each complete line on the output.
    func readCommands() {
        guard let descriptor = commandInput else { return }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count: Int
        do {
            count = try systemCall("read stdin") { chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
        } catch {
            log("udp-impair: \(error); ignoring stdin from now on")
            stopReadingCommands()
            return
        }
        if count == 0 {
            if let last = commandBuffer.finish(), let reply = execute(last) { output(reply) }
            stopReadingCommands()
            if configuration.exitWhenInputCloses { stopping = true }
            return
        }
        let lines = chunk.withUnsafeBytes { commandBuffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        for line in lines {
            if let reply = execute(line) { output(reply) }
        }
    }

    private func stopReadingCommands() {
        if let commandInput, !commandInputIsPolled { loop?.unwatch(commandInput) }
        commandInput = nil
    }
}
