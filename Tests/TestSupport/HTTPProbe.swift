import Foundation
import Glibc

/// A plain TCP client on 127.0.0.1 for the metrics endpoint: it sends exactly the bytes a test
/// makes up (a good request, garbage, half a request) and reads what comes back until the server
/// closes. Blocking, with a deadline on every wait.
public final class HTTPProbe {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// One HTTP answer: the status code, the headers (names lower-cased) and the body.
    public struct Answer {
        public let status: Int
        public let headers: [String: String]
        public let body: String
    }

    private let descriptor: Int32

    public init(port: UInt16) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = UDPProbe.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(description: "connect to port \(port): errno \(code)")
        }
    }

    deinit { close(descriptor) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += written
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Everything the server sends until it closes; nil if it is still open at the deadline.
    /// A reset after the answer counts as the end.
    public func readToEnd(timeout: TimeInterval = 10) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 || errno == ECONNRESET {
                return received
            } else if errno != EINTR && errno != EAGAIN {
                return received
            }
        }
    }

    /// Whether the server has begun to answer within `timeout` (nothing is read).
    public func hasAnswerStarted(within timeout: TimeInterval) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, Int32(TestTime.scaled(timeout) * 1000)) > 0
    }

    /// Whether the server closed the connection within `timeout` (without reading further).
    public func isClosedByServer(within timeout: TimeInterval) -> Bool { readToEnd(timeout: timeout) != nil }

    /// Parses an answer; nil when it is not HTTP/1.1 with a status line and headers.
    public static func parse(_ bytes: [UInt8]) -> Answer? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = dechunked(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    /// A chunked body (RFC 9112 section 7.1) put back together.
    private static func dechunked(_ body: String) -> String {
        var rest = Substring(body)
        var whole = ""
        while let end = rest.range(of: "\r\n"), let size = Int(rest[..<end.lowerBound].split(separator: ";")[0], radix: 16), size > 0 {
            let start = rest.utf8.index(end.upperBound, offsetBy: 0)
            let chunkEnd = rest.utf8.index(start, offsetBy: size, limitedBy: rest.utf8.endIndex) ?? rest.utf8.endIndex
            whole += rest[start..<chunkEnd]
            rest = rest[chunkEnd...].dropFirst(2)
        }
        return whole
    }

    /// Sends `request` on a new connection and parses the answer.
    public static func exchange(port: UInt16, _ request: String, timeout: TimeInterval = 10) throws -> Answer {
        let probe = try HTTPProbe(port: port)
        try probe.send(request)
        guard let bytes = probe.readToEnd(timeout: timeout) else { throw Failure(description: "no answer within \(timeout) s") }
        guard let answer = parse(bytes) else {
            throw Failure(description: "not an HTTP answer: \(String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription)")
        }
        return answer
    }

    /// Scrapes every 20 ms until the answer has `status` (what the server does next depends on
    /// connections it has yet to notice); the last answer otherwise.
    public static func get(port: UInt16, until status: Int, timeout: TimeInterval = 5) -> Answer? {
        get(port: port, timeout: timeout) { $0.status == status }
    }

    /// Scrapes every 20 ms until an answer satisfies `done`; the last answer otherwise.
    public static func get(port: UInt16, timeout: TimeInterval = 5, until done: (Answer) -> Bool) -> Answer? {
        let deadline = Date().addingTimeInterval(TestTime.scaled(timeout))
        var answer: Answer?
        repeat {
            answer = try? get(port: port)
            if let answer, done(answer) { return answer }
            usleep(20_000)
        } while Date() < deadline
        return answer
    }

    /// `GET path` as a scraper sends it.
    public static func get(port: UInt16, _ path: String = "/metrics") throws -> Answer {
        try exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: */*\r\nConnection: close\r\n\r\n")
    }
}

/// A metrics page as numbers: `name{labels}` → value, for the families the tests check.
public struct ScrapedMetrics {
    public let values: [String: Double]

    public init(_ page: String) {
        var values: [String: Double] = [:]
        for line in page.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        self.values = values
    }

    /// The value of a sample, named as the page writes it: `qchat_deliveries_total{type="msg"}`.
    public subscript(_ sample: String) -> Double? { values[sample] }
}
