import Glibc
import EventRuntime

/// One Redis connection for a thread of its own that may block (a node's heartbeat, which must
/// not wait behind the event loop's work or its pipelined commands): one command at a time, each
/// answered within `timeout` or failed. The same encoder and reader as ``RedisConnection``; its own
/// socket. Not for the loop thread.
public final class RedisBlockingConnection {
    public let address: RedisServerAddress
    private let stream: TCPStream
    private let timeout: TimeSpan
    private let reader = RESPReader(limits: RedisLimits(maxReplyElements: 1024, maxReplyBytes: 1 << 20))
    private var failed = false

    /// Connects (and SELECTs `database` when it is not 0) within `timeout`.
    public init(address: RedisServerAddress, database: Int = 0, timeout: TimeSpan) throws(RedisFailure) {
        self.address = address
        self.timeout = timeout
        guard let remote = SocketAddress.resolve(host: address.host, port: address.port) else {
            throw .unavailable("cannot resolve \(address.host)")
        }
        do {
            stream = try TCPStream(connectingTo: remote)
        } catch {
            throw .unavailable("connect to \(address): \(error)")
        }
        let deadline = MonotonicTime.now() + timeout
        guard Self.wait(for: Int16(POLLOUT), on: stream.descriptor, until: deadline) else {
            stream.close()
            throw .unavailable("connect to \(address) timed out")
        }
        do {
            try stream.finishConnect()
        } catch {
            stream.close()
            throw .unavailable("connect to \(address): \(error)")
        }
        if database != 0 {
            let reply = try call(RedisCommand("SELECT", String(database)))
            guard reply == .status("OK") else { throw .protocolViolation("SELECT answered \(reply)") }
        }
    }

    deinit { stream.close() }

    /// Sends `command` and waits for its reply; a failure leaves the connection useless (the caller
    /// makes a new one).
    public func call(_ command: RedisCommand) throws(RedisFailure) -> RedisReply {
        guard !failed else { throw .connectionLost("connection failed before") }
        let deadline = MonotonicTime.now() + timeout
        var bytes: [UInt8] = []
        RESPEncoder.append(command, to: &bytes)
        var written = 0
        while written < bytes.count {
            guard Self.wait(for: Int16(POLLOUT), on: stream.descriptor, until: deadline) else { return try fail(.connectionLost("write timed out")) }
            do {
                written += try bytes[written...].withUnsafeBytes { try stream.write($0) }
            } catch {
                return try fail(.connectionLost("\(error)"))
            }
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            guard Self.wait(for: Int16(POLLIN), on: stream.descriptor, until: deadline) else {
                return try fail(.connectionLost("no reply within \(timeout)"))
            }
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            } catch {
                return try fail(.connectionLost("\(error)"))
            }
            guard let count else { continue }
            if count == 0 { return try fail(.connectionLost("closed by \(address)")) }
            var reply: RedisReply?
            let failure = buffer.withUnsafeBytes { bytes in
                reader.parse(UnsafeRawBufferPointer(rebasing: bytes[..<count])) { reply = reply ?? $0 }
            }
            if let failure { return try fail(failure) }
            if let reply { return reply }
        }
    }

    private func fail(_ failure: RedisFailure) throws(RedisFailure) -> RedisReply {
        failed = true
        throw failure
    }

    /// Waits until `descriptor` is ready for `events` or `deadline` passes.
    private static func wait(for events: Int16, on descriptor: Int32, until deadline: MonotonicTime) -> Bool {
        while true {
            let now = MonotonicTime.now()
            guard now < deadline else { return false }
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let milliseconds = Int32(min(Int64((deadline - now).nanoseconds / 1_000_000) + 1, Int64(Int32.max)))
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }
}
