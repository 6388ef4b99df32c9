import ChatClientKit
import Testing

struct KnownServersTests {
    static let one = String(repeating: "ab", count: 32)
    static let two = String(repeating: "0f", count: 32)

    /// Lines read back as entries with their line numbers; comments and blank lines are skipped;
    /// host names compare case-insensitively; a fingerprint is kept in lowercase.
    @Test func readsEntriesWithTheirLines() throws {
        let text = KnownServers.header + "\nChat.Example 4433 sha256:\(Self.one.uppercased())\n10.0.0.2\t5000\tsha256:\(Self.two)\n"
        let known = try KnownServers(text: text, name: "ks")
        #expect(known.entries.count == 2)
        let entry = try #require(known.entry(host: "chat.example", port: 4433))
        #expect(entry.host == "chat.example" && entry.fingerprint == Self.one && entry.line == 4)
        #expect(known.entry(host: "10.0.0.2", port: 5000)?.fingerprint == Self.two)
        #expect(known.entry(host: "chat.example", port: 4434) == nil)
        #expect(known.lineCount == 5)
    }

    /// What ``KnownServers/line(host:port:fingerprint:)`` writes parses back to the same entry.
    @Test func writtenLinesReadBack() throws {
        let text = KnownServers.header + KnownServers.line(host: "Host", port: 1, fingerprint: Self.one)
        #expect(try KnownServers(text: text, name: "ks").entry(host: "host", port: 1)?.fingerprint == Self.one)
    }

    /// A server chosen by its advertised name is listed under that name too (issue 24, defect 18),
    /// any bytes of it percent-encoded; a name listed twice, or a damaged name line, is an error.
    @Test func namesReadBack() throws {
        let name = "team chat ü\u{202E}"
        let text = KnownServers.header + KnownServers.line(host: "10.0.0.5", port: 4433, fingerprint: Self.one)
            + KnownServers.line(name: name, fingerprint: Self.one)
        let known = try KnownServers(text: text, name: "ks")
        #expect(known.entry(name: name)?.fingerprint == Self.one && known.entry(name: name)?.line == 4)
        #expect(known.entry(name: "team chat") == nil)
        #expect(KnownServers.line(name: name, fingerprint: Self.one).hasPrefix("name:team%20chat%20%C3%BC%E2%80%AE sha256:"))
        for bad in ["name:a sha256:\(Self.one)\nname:a sha256:\(Self.two)\n", "name:a\n", "name:%G1 sha256:\(Self.one)\n", "name: sha256:\(Self.one)\n"] {
            #expect(throws: KnownServersError.self) { try KnownServers(text: bad, name: "ks") }
        }
    }

    /// A damaged file is an error naming the file and line, never a list without that server:
    /// a missing field, a bad port, a bad fingerprint, a server listed twice.
    @Test func damagedFilesAreErrors() {
        let bad = [
            ("h 1\n", "expected HOST PORT sha256:FINGERPRINT, found 2 field(s)", 1),
            ("h 1 sha256:\(Self.one) extra\n", "found 4 field(s)", 1),
            ("# c\nh 0 sha256:\(Self.one)\n", "not a port", 2),
            ("h 70000 sha256:\(Self.one)\n", "not a port", 1),
            ("h 1 sha1:\(Self.one)\n", "not sha256: and 64 hex digits", 1),
            ("h 1 sha256:\(Self.one.dropLast())\n", "not sha256: and 64 hex digits", 1),
            ("h 1 sha256:\(String(repeating: "g", count: 64))\n", "not sha256: and 64 hex digits", 1),
            ("h 1 sha256:\(Self.one)\nH 1 sha256:\(Self.two)\n", "listed already on line 1", 2),
        ]
        for (text, problem, line) in bad {
            do {
                _ = try KnownServers(text: text, name: "/x/known_servers")
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.line == line, "\(text)")
                #expect(error.description.contains(problem), "\(error.description)")
                #expect(error.description.hasPrefix("/x/known_servers line \(line): "))
                #expect(error.description.contains("no server is trusted from a damaged file"))
            }
        }
    }

    /// The same server on another port is another entry (ssh's known_hosts does the same with [host]:port).
    @Test func portsAreDistinct() throws {
        let known = try KnownServers(text: "h 1 sha256:\(Self.one)\nh 2 sha256:\(Self.two)\n", name: "ks")
        #expect(known.entry(host: "h", port: 1)?.fingerprint == Self.one)
        #expect(known.entry(host: "h", port: 2)?.fingerprint == Self.two)
    }
}
