import Foundation
import Glibc
import RuntimeCore

/// A slow-loris on a metrics port: `count` TCP connections, each sending one byte of a request
/// head that never ends every `interval`, from a thread of their own until ``stop()``. A
/// connection the server closes is opened again at once, as an attacker would.
public final class TricklingScrapers: Sendable {
    private let port: UInt16
    private let count: Int
    private let interval: TimeInterval
    private let state = LockedValue(State())
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var stopped = false
        var opened = 0
    }

    /// Opens the connections (the kernel has queued them all when this returns) and starts trickling.
    public init(port: UInt16, count: Int, interval: TimeInterval = 0.1) throws {
        self.port = port
        self.count = count
        self.interval = interval
        let thread = Thread { [self] in
            let first = (0..<count).map { _ in try? HTTPProbe(port: port) }
            state.withLock { $0.opened = first.compactMap { $0 }.count }
            ready.signal()
            trickle(first)
            finished.signal()
        }
        thread.start()
        ready.wait()
        guard opened == count else {
            stop()
            throw HTTPProbe.Failure(description: "opened \(opened) of \(count) connections")
        }
    }

    /// Connections opened so far, the reconnections included.
    public var opened: Int { state.withLock { $0.opened } }

    public func stop() {
        state.withLock { $0.stopped = true }
        finished.wait()
    }

    private func trickle(_ first: [HTTPProbe?]) {
        // A head that never ends: the request line, then a header value a byte at a time, kept
        // under any request-size limit by starting over on a new connection.
        let head = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        var probes: [HTTPProbe?] = first
        var sent = [Int](repeating: 0, count: count)
        while !state.withLock({ $0.stopped }) {
            for index in probes.indices {
                if probes[index] == nil || sent[index] > 1024 {
                    probes[index] = try? HTTPProbe(port: port)
                    sent[index] = 0
                    state.withLock { $0.opened += 1 }
                }
                let byte = sent[index] < head.count ? head[sent[index]] : UInt8(ascii: "a")
                do {
                    try probes[index]?.send([byte])
                    sent[index] += 1
                } catch {
                    probes[index] = nil
                }
            }
            Thread.sleep(forTimeInterval: interval)
        }
    }
}
