import Prometheus
import Testing

/// The strict reading of a request head: exactly `GET /metrics`, everything else refused with
/// the status that says why, decided as soon as the bytes allow.
@Suite("scrape requests")
struct ScrapeRequestTests {
    private func judge(_ text: String, limit: Int = 8192) -> ScrapeRequest.Verdict {
        ScrapeRequest.judge(Array(text.utf8), limit: limit)
    }

    /// What Prometheus and curl send is accepted, a query string ignored, HTTP/1.0 without Host too.
    @Test func acceptsWhatScrapersSend() {
        #expect(judge("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9464\r\nUser-Agent: Prometheus/2.42.0\r\nAccept: text/plain\r\n\r\n") == .metrics)
        #expect(judge("GET /metrics?name=x HTTP/1.1\r\nHost: a\r\n\r\n") == .metrics)
        #expect(judge("GET /metrics HTTP/1.0\r\n\r\n") == .metrics)
        #expect(judge("GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n") == .metrics)
    }

    /// A head still arriving is incomplete, in any piece.
    @Test func incompleteUntilTheBlankLine() {
        #expect(judge("") == .incomplete)
        #expect(judge("GET /metr") == .incomplete)
        #expect(judge("GET /metrics HTTP/1.1\r\nHost: a\r\n") == .incomplete)
        #expect(judge("GET /metrics HTTP/1.1\r\nHost: a\r\n\r") == .incomplete)
    }

    /// Other paths are 404, other methods on /metrics 405, other versions 505.
    @Test func wrongTargetMethodOrVersion() {
        #expect(judge("GET / HTTP/1.1\r\nHost: a\r\n\r\n") == .refuse(.notFound))
        #expect(judge("GET /metrics/ HTTP/1.1\r\nHost: a\r\n\r\n") == .refuse(.notFound))
        #expect(judge("GET http://a/metrics HTTP/1.1\r\nHost: a\r\n\r\n") == .refuse(.notFound))
        #expect(judge("POST /metrics HTTP/1.1\r\nHost: a\r\n\r\n") == .refuse(.methodNotAllowed))
        #expect(judge("HEAD /metrics HTTP/1.1\r\nHost: a\r\n\r\n") == .refuse(.methodNotAllowed))
        #expect(judge("DELETE /other HTTP/1.1\r\nHost: a\r\n\r\n") == .refuse(.notFound))
        #expect(judge("GET /metrics HTTP/2.0\r\nHost: a\r\n\r\n") == .refuse(.versionNotSupported))
        #expect(judge("GET /metrics HTTP/0.9\r\n\r\n") == .refuse(.versionNotSupported))
    }

    /// Malformed heads are 400: bad request lines, bare LF, NUL, non-ASCII, folding, bodies, Host rules.
    @Test func malformedHeads() {
        for head in ["GET /metrics\r\n\r\n", "GET  /metrics HTTP/1.1\r\nHost: a\r\n\r\n", "GET /metrics HTTP/1.1 extra\r\n\r\n",
                     "GET /metrics HTTPS/1.1\r\n\r\n", "G(T /metrics HTTP/1.1\r\nHost: a\r\n\r\n", "\r\n\r\n",
                     "GET /metrics HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", "GET /metrics HTTP/1.1\r\nHost : a\r\n\r\n",
                     "GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", "GET /metrics HTTP/1.1\r\n\r\n",
                     "GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                     "GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n",
                     "GET /metrics HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
                     "GET /metrics HTTP/1.1\r\nHost: a\u{7F}\r\n\r\n"] {
            #expect(judge(head) == .refuse(.badRequest), "\(head.debugDescription)")
        }
        // Decided at once, without waiting for the end of the head.
        #expect(judge("GET /metrics HTTP/1.1\n") == .refuse(.badRequest))
        #expect(judge("GET /met\u{0}") == .refuse(.badRequest))
        #expect(judge("GET /métrics") == .refuse(.badRequest))
    }

    /// A head reaching the limit without its end is 431; one that ends within it is judged.
    @Test func sizeLimit() {
        let head = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(judge(head, limit: head.utf8.count) == .metrics)
        #expect(judge(head, limit: head.utf8.count - 1) == .refuse(.headersTooLarge))
        #expect(judge(String(repeating: "a", count: 300), limit: 256) == .refuse(.headersTooLarge))
    }

    /// Byte by byte, the reader reaches the same verdict, and keeps it after more bytes.
    @Test func readerTakesPieces() {
        let head = Array("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        var reader = ScrapeRequestReader(limit: 8192)
        var verdicts: [ScrapeRequest.Verdict] = []
        for byte in head { verdicts.append([byte].withUnsafeBytes { reader.append($0) }) }
        #expect(verdicts.dropLast().allSatisfy { $0 == .incomplete })
        #expect(verdicts.last == .metrics)
        #expect(Array("garbage\n".utf8).withUnsafeBytes { reader.append($0) } == .metrics)
    }
}
