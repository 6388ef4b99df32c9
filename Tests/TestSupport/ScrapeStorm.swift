import Foundation
import Glibc

/// Many scrapers at once: `connections` TCP connections to a metrics port opened together on
/// one thread (non-blocking sockets and poll), each sending `GET /metrics` and reading its answer
/// to the end. Counts the answers by status.
public enum ScrapeStorm {
    public struct Result: CustomStringConvertible {
        /// Answers by HTTP status.
        public var statuses: [Int: Int] = [:]
        /// Connections that failed or ended without an HTTP answer.
        public var failures = 0
        /// Connections still open at the deadline.
        public var unfinished = 0

        public var description: String {
            "statuses \(statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")), "
                + "failures \(failures), unfinished \(unfinished)"
        }
    }

    private final class Scraper {
        let descriptor: Int32
        var sent = false
        var received: [UInt8] = []
        var done = false
        init(descriptor: Int32) { self.descriptor = descriptor }
    }

    public static func run(port: UInt16, connections: Int, timeout: TimeInterval = 30) -> Result {
        var result = Result()
        let request = Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        var scrapers: [Scraper] = []
        for _ in 0..<connections {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                result.failures += 1
                continue
            }
            var address = UDPProbe.loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected != 0 && errno != EINPROGRESS {
                close(descriptor)
                result.failures += 1
                continue
            }
            scrapers.append(Scraper(descriptor: descriptor))
        }
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        var buffer = [UInt8](repeating: 0, count: 65536)
        while scrapers.contains(where: { !$0.done }), Date() < deadline {
            let open = scrapers.filter { !$0.done }
            var polls = open.map { pollfd(fd: $0.descriptor, events: Int16($0.sent ? POLLIN : POLLOUT), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
            for (index, scraper) in open.enumerated() where polls[index].revents != 0 {
                if !scraper.sent {
                    var code: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(scraper.descriptor, SOL_SOCKET, SO_ERROR, &code, &length)
                    let written = code == 0 ? request.withUnsafeBytes { send(scraper.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } : -1
                    if written == request.count { scraper.sent = true } else { finish(scraper, &result) }
                    continue
                }
                let count = recv(scraper.descriptor, &buffer, buffer.count, 0)
                if count > 0 {
                    scraper.received += buffer[..<count]
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    finish(scraper, &result)
                }
            }
        }
        for scraper in scrapers where !scraper.done {
            result.unfinished += 1
            close(scraper.descriptor)
        }
        return result
    }

    private static func finish(_ scraper: Scraper, _ result: inout Result) {
        scraper.done = true
        close(scraper.descriptor)
        if let answer = HTTPProbe.parse(scraper.received) {
            result.statuses[answer.status, default: 0] += 1
        } else {
            result.failures += 1
        }
    }
}
