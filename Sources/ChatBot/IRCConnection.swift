import QuicIO

/// One IRC client connection on an event loop: a non-blocking TCP socket (TCP_NODELAY), the TLS
/// session over it, and the line framing. It hands every received line to `onMessage` and says
/// once, through `onClose`, why it ended. Lines go out at once (one TLS record and one `send`
/// each), as a chat client writes what its user typed.
final class IRCConnection {
    enum State { case connecting, handshaking, established, closed }

    private(set) var state = State.connecting
    private let loop: EventLoop
    private let stream: TCPStream
    private let tls: TLSStreamSession
    private var lines = IRCLineReader()
    /// Shared by every connection of the loop: bytes read from a socket before TLS takes them.
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var watchingWritable = false

    /// The TLS handshake completed; `negotiated` describes protocol and cipher.
    var onEstablished: ((_ negotiated: String) -> Void)?
    var onMessage: ((IRCMessage) -> Void)?
    var onClose: ((_ reason: String) -> Void)?

    init(to server: SocketAddress, tls context: TLSStreamContext, loop: EventLoop, readBuffer: UnsafeMutableRawBufferPointer) throws {
        self.loop = loop
        self.readBuffer = readBuffer
        tls = try TLSStreamSession(context: context)
        stream = try TCPStream(connectingTo: server)
        try loop.watchReadable(stream.descriptor) { [unowned self] in readable() }
        watchingWritable = true
        loop.watchWritable(stream.descriptor) { [unowned self] in connected() }
    }

    deinit { if state != .closed { loop.unwatch(stream.descriptor) } }

    /// Queues `message` and writes it out; a message that cannot be encoded closes nothing and
    /// returns false.
    @discardableResult
    func send(_ message: IRCMessage) -> Bool {
        guard state != .closed, let line = message.encoded() else { return false }
        tls.send(line)
        if state == .established { flush() }
        return true
    }

    /// Sends what is queued (a QUIT, say) and close_notify, then closes the socket.
    func close(reason: String) {
        guard state != .closed else { return }
        if state == .established {
            flush()
            tls.close()
            try? tls.writeCiphertext { try stream.write($0) }
        }
        end(reason, notify: false)
    }

    // MARK: Events

    private func connected() {
        do {
            try stream.finishConnect()
        } catch {
            return end("\(error)")
        }
        state = .handshaking
        flush()
    }

    private func readable() {
        guard state == .handshaking || state == .established else {
            if state == .connecting { connected() }
            return
        }
        do {
            // Level-triggered: a few reads per wake-up are enough; the loop comes back for the rest.
            for _ in 0..<4 {
                guard let count = try stream.read(into: readBuffer) else { break }
                if count == 0 { return end("the server closed the connection") }
                tls.receive(UnsafeRawBufferPointer(rebasing: readBuffer[..<count]))
                if count < readBuffer.count { break }
            }
            try advanceTLS()
            tls.readPlaintext(into: &lines.buffer)
            try lines.takeLines { line in
                if let message = IRCMessage(parsing: line) { onMessage?(message) }
            }
        } catch {
            return end("\(error)")
        }
        if tls.state == .closed && state != .closed { return end("the server closed the TLS session") }
        flush()
    }

    private func advanceTLS() throws {
        try tls.process()
        if state == .handshaking && tls.state == .established {
            state = .established
            onEstablished?(tls.negotiatedDescription ?? "")
        }
    }

    /// Encrypts what is queued and writes what the socket takes; waits for writability for the rest.
    private func flush() {
        guard state == .handshaking || state == .established else { return }
        do {
            try advanceTLS()
            try tls.writeCiphertext { try stream.write($0) }
        } catch {
            return end("\(error)")
        }
        let blocked = tls.pendingCiphertext > 0
        if blocked != watchingWritable {
            watchingWritable = blocked
            loop.watchWritable(stream.descriptor, blocked ? { [unowned self] in flush() } : nil)
        }
    }

    private func end(_ reason: String, notify: Bool = true) {
        guard state != .closed else { return }
        state = .closed
        loop.unwatch(stream.descriptor)
        stream.close()
        if notify { onClose?(reason) }
    }
}
