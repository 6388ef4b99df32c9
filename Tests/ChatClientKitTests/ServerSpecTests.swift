import Testing

@testable import ChatClientKit

/// How a `--server` value is read (docs/PROTOCOL.md section 10, "Clients with several servers"):
/// exactly HOST:PORT is an address, anything else the name of a server on the local network; an
/// address-like value that is wrong is an error, never a name.
struct ServerSpecTests {
    @Test(arguments: [
        ("localhost:4433", "localhost", 4433), ("chat.example.org:443", "chat.example.org", 443), ("192.0.2.1:1", "192.0.2.1", 1),
        ("[::1]:4433", "::1", 4433), ("[fe80::1]:65535", "fe80::1", 65535), ("node-2.cluster.local.:4434", "node-2.cluster.local.", 4434),
    ])
    func addresses(_ text: String, _ host: String, _ port: Int) {
        #expect(ServerSpec.parse(text) == .address(ServerSpec(host: host, port: UInt16(port))))
    }

    /// Names people give servers on a local network: spaces, `#`, no port, a port that is not digits.
    @Test(arguments: ["team chat", "qchat lab #2", "qchat", "web:http", "host:", "-bad-:80", "a..b:80", "é:80", "name with: 80"])
    func names(_ text: String) {
        #expect(ServerSpec.parse(text) == .name(text))
    }

    /// Unbracketed IPv6, brackets without a port, something else in brackets, a port out of range.
    @Test(arguments: ["::1", "::1:4433", "fe80::1:4433", "[::1]", "[::1]:", "[::1]:x", "[nothex]:1", "localhost:0", "localhost:70000",
                      "192.0.2.1:123456"])
    func mistakes(_ text: String) {
        guard case .invalid(let why) = ServerSpec.parse(text) else {
            Issue.record("\(text) was not refused")
            return
        }
        #expect(why.contains(text))
    }

    /// Written back as given, IPv6 in brackets.
    @Test func descriptions() {
        #expect(ServerSpec(host: "::1", port: 4433).description == "[::1]:4433")
        #expect(ServerSpec(host: "localhost", port: 1).description == "localhost:1")
    }

    /// A list of values: addresses once each in order, names apart, a wrong one or more than 32
    /// addresses refused.
    @Test func listsAreSortedAndBounded() throws {
        let sorted = try ServerSpec.sort(["a:1", "team chat", "b:2", "a:1"])
        #expect(sorted.addresses == [ServerSpec(host: "a", port: 1), ServerSpec(host: "b", port: 2)] && sorted.names == ["team chat"])
        #expect(throws: ServerSpec.Refusal.self) { try ServerSpec.sort(["a:1", "::1:2"]) }
        #expect(throws: ServerSpec.Refusal(text: "--server: at most 32 servers")) {
            try ServerSpec.sort((1...33).map { "127.0.0.1:\($0)" })
        }
        #expect((try? ServerSpec.sort((1...32).map { "127.0.0.1:\($0)" }))?.addresses.count == 32)
    }

    /// Resolving keeps the order, each address once, at most 64 in all, each with its server's
    /// policy.
    @Test func resolvingIsBounded() {
        let servers = (1...70).map { ServerSpec(host: "127.0.0.1", port: UInt16($0)) } + [ServerSpec(host: "127.0.0.1", port: 1)]
        let (addresses, unresolved) = ServerSpec.resolve(servers) { $0.port == 2 ? .pinned(String(repeating: "a", count: 64)) : .firstUse }
        #expect(addresses.count == 64 && unresolved.isEmpty)
        #expect(addresses.map(\.port) == Array(1...64).map(UInt16.init))
        #expect(addresses[1].policy == .pinned(String(repeating: "a", count: 64)) && addresses[0].policy == .firstUse)
        #expect(addresses[0].label == "127.0.0.1:1")
        #expect(ServerAddress(host: "localhost", port: 9, address: .v4(address: 0x7F00_0001, port: 9)).label == "localhost:9 (127.0.0.1)")
    }
}
