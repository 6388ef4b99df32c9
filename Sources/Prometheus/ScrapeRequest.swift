/// Judges the bytes a scraper sent so far: a strict reading of an HTTP/1.x request head
/// (RFC 9112) that accepts exactly `GET /metrics` and refuses everything else with the status
/// that says why. Pure: no sockets, so every case is a unit test.
public enum ScrapeRequest {
    public enum Verdict: Equatable, Sendable {
        /// The head has not ended yet (CR LF CR LF) and is within the limit.
        case incomplete
        /// A well-formed `GET /metrics` (a query string is ignored).
        case metrics
        case refuse(HTTPStatus)
    }

    /// The verdict on `bytes` received so far (see ``ScrapeRequestReader`` for bytes arriving in pieces).
    public static func judge(_ bytes: [UInt8], limit: Int) -> Verdict {
        var reader = ScrapeRequestReader(limit: limit)
        return bytes.withUnsafeBytes { reader.append($0) }
    }

    static let carriageReturn = UInt8(ascii: "\r")
    static let lineFeed = UInt8(ascii: "\n")

    /// The head without its final CR LF CR LF.
    static func judgeHead(_ head: ArraySlice<UInt8>) -> Verdict {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return .refuse(.badRequest) }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty else { return .refuse(.badRequest) }
        let version = parts[2]
        guard version.hasPrefix("HTTP/"), version.count == 8 else { return .refuse(.badRequest) }
        let number = version.dropFirst(5)
        guard number.first?.isASCII == true, number.first?.isNumber == true, number.dropFirst().first == ".",
              number.last?.isNumber == true else { return .refuse(.badRequest) }
        guard number == "1.1" || number == "1.0" else { return .refuse(.versionNotSupported) }

        var hosts = 0
        for line in lines {
            // Line folding (obs-fold) is refused, as RFC 9112 section 5.2 allows.
            guard let colon = line.firstIndex(of: ":"), line.first != " ", line.first != "\t" else { return .refuse(.badRequest) }
            let name = line[..<colon]
            guard isToken(name) else { return .refuse(.badRequest) }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
                return .refuse(.badRequest)
            }
            switch name.lowercased() {
            case "host": hosts += 1
            // This endpoint reads no body: a request announcing one is refused.
            case "content-length": guard value == "0" else { return .refuse(.badRequest) }
            case "transfer-encoding": return .refuse(.badRequest)
            default: break
            }
        }
        // HTTP/1.1 requires exactly one Host (RFC 9112 section 3.2).
        if number == "1.1" && hosts != 1 { return .refuse(.badRequest) }
        if hosts > 1 { return .refuse(.badRequest) }

        let target = parts[1]
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard path == "/metrics" else { return .refuse(.notFound) }
        guard parts[0] == "GET" else { return .refuse(.methodNotAllowed) }
        return .metrics
    }

    /// RFC 9110 token: visible ASCII except separators.
    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in characters: String) -> Substring {
        var slice = self
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return slice
    }
}
