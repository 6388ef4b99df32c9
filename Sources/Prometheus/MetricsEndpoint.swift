import EventRuntime

/// A small, strict HTTP/1.1 server for `GET /metrics` on the process's event loop: one
/// request per connection (`Connection: close`), every connection bounded in number, request
/// size and time (``MetricsEndpointLimits``). The page is built on the loop thread when a
/// scrape asks for it, at most once per cache lifetime, so the figures it reads are the loop's
/// own, without locks, and a thousand scrapers cost one page.
public final class MetricsEndpoint {
    /// Changeable while running (a configuration reload); applies to connections accepted later.
    public var limits: MetricsEndpointLimits
    public private(set) var statistics = MetricsEndpointStatistics()
    public let localAddress: SocketAddress

    private let loop: EventLoop
    private let listener: TCPListener
    private let buildPage: () -> [UInt8]
    private var connections: [Int32: ScrapeConnection] = [:]
    /// The connections a newcomer may take the place of when every slot is taken.
    private let displaceable = DisplaceableScrapes()
    private var cached: (built: MonotonicTime, answer: [UInt8])?
    /// One read buffer for every connection: reads happen one at a time on the loop.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
    /// Set while accepting is paused (out of descriptors): the timer that resumes it.
    private var resumeAccepting: LoopTimerID?

    /// Listens on `address`; `page` returns the page's body (the exposition text).
    public init(loop: EventLoop, address: SocketAddress, limits: MetricsEndpointLimits, page: @escaping () -> [UInt8]) throws {
        self.loop = loop
        self.limits = limits
        buildPage = page
        listener = try TCPListener(bindingTo: address)
        localAddress = listener.localAddress
        try loop.watchReadable(listener.descriptor) { [unowned self] in acceptWaiting() }
    }

    deinit {
        if let resumeAccepting { loop.cancel(resumeAccepting) }
        for connection in connections.values { close(connection) }
        loop.unwatch(listener.descriptor)
        scratch.deallocate()
    }

    /// Connections open now.
    public var openConnections: Int { connections.count }

    // MARK: Accepting

    private func acceptWaiting() {
        // A few per wake-up: between two batches the loop serves the chat, so a storm of
        // scrapers delays a delivery by a few accepts at most.
        for _ in 0..<16 {
            let stream: TCPStream?
            do {
                stream = try listener.accept()
            } catch {
                // Out of descriptors: the listener stays readable, so stop watching it for a
                // moment instead of spinning.
                statistics.acceptErrors += 1
                pauseAccepting()
                return
            }
            guard let stream else { return }
            guard connections.count < limits.maxConnections || displaceOldest() else {
                refuseAtOnce(stream)
                continue
            }
            open(stream)
        }
    }

    private func pauseAccepting() {
        guard resumeAccepting == nil else { return }
        loop.unwatch(listener.descriptor)
        // unowned, as every handler here, and cancelled in deinit (a weak reference would leave
        // Swift's side table, which LeakSanitizer cannot follow, on an endpoint alive at exit).
        resumeAccepting = loop.schedule(at: .now() + .milliseconds(100)) { [unowned self] in
            resumeAccepting = nil
            try? loop.watchReadable(listener.descriptor) { [unowned self] in acceptWaiting() }
            acceptWaiting()
        }
    }

    /// Every slot is taken: closes the oldest connection that holds one without being answered
    /// (still sending its request: 503, as to one refused at once) or after it (answered, its
    /// scraper has not closed), so the new one can have its place. What the oldest sent
    /// meanwhile is read first: a real scraper's request that is waiting in the socket is
    /// answered, not displaced. False when every connection is having its answer written.
    private func displaceOldest() -> Bool {
        while let oldest = displaceable.oldest {
            if oldest.phase == .reading { readable(oldest) }
            // Read to its end, answered, or closed meanwhile: the next oldest, if it is still the first.
            guard displaceable.oldest === oldest, connections[oldest.stream.descriptor] === oldest else { continue }
            statistics.displaced += 1
            if oldest.phase == .reading {
                count(.serviceUnavailable)
                let answer = MetricsEndpoint.answer(.serviceUnavailable)
                _ = try? answer.withUnsafeBytes { try oldest.stream.write($0) }
            }
            close(oldest)
            return true
        }
        return false
    }

    /// One connection too many: a 503 if the socket takes it at once, then closed.
    private func refuseAtOnce(_ stream: TCPStream) {
        count(.serviceUnavailable)
        let answer = MetricsEndpoint.answer(.serviceUnavailable)
        _ = try? answer.withUnsafeBytes { try stream.write($0) }
        stream.shutdownWrite()
        stream.close()
    }

    private func open(_ stream: TCPStream) {
        let connection = ScrapeConnection(stream: stream, requestLimit: limits.maxRequestBytes)
        do {
            try loop.watchReadable(stream.descriptor) { [unowned self, unowned connection] in readable(connection) }
        } catch {
            stream.close()
            return
        }
        connections[stream.descriptor] = connection
        displaceable.append(connection)
        connection.deadline = loop.schedule(at: .now() + limits.timeout) { [unowned self, weak connection] in
            guard let connection else { return }
            connection.deadline = nil
            timedOut(connection)
        }
    }

    // MARK: Reading

    private func readable(_ connection: ScrapeConnection) {
        // Bounded per wake-up, like the accepts; the rest waits for the next round.
        for _ in 0..<16 {
            let received: Int?
            do {
                received = try connection.stream.read(into: scratch)
            } catch {
                if connection.phase == .reading { statistics.abandoned += 1 }
                close(connection)
                return
            }
            guard let received else { return }
            guard received > 0 else {
                if connection.phase == .reading { statistics.abandoned += 1 }
                close(connection)
                return
            }
            // After the request, whatever the scraper still sends is read and dropped.
            guard connection.phase == .reading else { continue }
            switch connection.request.append(UnsafeRawBufferPointer(rebasing: scratch[..<received])) {
            case .incomplete: continue
            case .metrics:
                count(.ok)
                send(page(), to: connection)
            case .refuse(let status):
                count(status)
                send(MetricsEndpoint.answer(status), to: connection)
            }
        }
    }

    private func timedOut(_ connection: ScrapeConnection) {
        switch connection.phase {
        case .reading:
            statistics.timeouts += 1
            count(.requestTimeout)
            let answer = MetricsEndpoint.answer(.requestTimeout)
            _ = try? answer.withUnsafeBytes { try connection.stream.write($0) }
        case .answering:
            // A scraper that stopped reading its answer.
            statistics.timeouts += 1
        case .lingering:
            break
        }
        close(connection)
    }

    // MARK: Answering

    /// The page with its status line and headers, rebuilt once the cached one is too old.
    private func page() -> [UInt8] {
        let now = MonotonicTime.now()
        if let cached, now - cached.built < limits.cacheLifetime { return cached.answer }
        statistics.pagesBuilt += 1
        let body = buildPage()
        let answer = MetricsEndpoint.head(.ok, contentType: MetricsPage.contentType, length: body.count) + body
        cached = (now, answer)
        return answer
    }

    private func send(_ answer: [UInt8], to connection: ScrapeConnection) {
        displaceable.remove(connection)
        connection.phase = .answering
        connection.answer = answer
        connection.written = 0
        writeMore(connection)
    }

    private func writeMore(_ connection: ScrapeConnection) {
        while connection.written < connection.answer.count {
            let written: Int
            do {
                written = try connection.answer.withUnsafeBytes { try connection.stream.write(UnsafeRawBufferPointer(rebasing: $0[connection.written...])) }
            } catch {
                close(connection)
                return
            }
            guard written > 0 else {
                loop.watchWritable(connection.stream.descriptor) { [unowned self, unowned connection] in writeMore(connection) }
                return
            }
            connection.written += written
        }
        loop.watchWritable(connection.stream.descriptor, nil)
        connection.answer = []
        connection.phase = .lingering
        displaceable.append(connection)
        connection.stream.shutdownWrite()
    }

    private func close(_ connection: ScrapeConnection) {
        if let deadline = connection.deadline {
            loop.cancel(deadline)
            connection.deadline = nil
        }
        displaceable.remove(connection)
        let descriptor = connection.stream.descriptor
        loop.unwatch(descriptor)
        connections[descriptor] = nil
        connection.stream.close()
    }

    private func count(_ status: HTTPStatus) {
        statistics.answers[status, default: 0] += 1
    }

    // MARK: Answers

    static func head(_ status: HTTPStatus, contentType: String, length: Int, extra: String = "") -> [UInt8] {
        Array(("HTTP/1.1 \(status.rawValue) \(status.reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(length)\r\n"
            + extra + "Connection: close\r\n\r\n").utf8)
    }

    /// An error answer: the status, why, and for 405 the one method served.
    static func answer(_ status: HTTPStatus) -> [UInt8] {
        let body = Array(status.explanation.utf8)
        let extra = status == .methodNotAllowed ? "Allow: GET\r\n" : ""
        return head(status, contentType: "text/plain; charset=utf-8", length: body.count, extra: extra) + body
    }
}
