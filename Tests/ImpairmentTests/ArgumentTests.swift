import EventRuntime
import Impairment
import Testing

/// Flag and value parsing: pure, so these run in parallel with nothing to wait for.
@Suite struct ArgumentTests {
    /// Durations, probabilities, rates and byte counts parse in the documented units.
    @Test func valuesParseInDocumentedUnits() throws {
        #expect(try ValueParser.duration("250us") == .microseconds(250))
        #expect(try ValueParser.duration("100ms") == .milliseconds(100))
        #expect(try ValueParser.duration("1.5s") == .milliseconds(1500))
        #expect(try ValueParser.duration("2m") == .seconds(120))
        #expect(try ValueParser.duration("0") == .zero)
        #expect(try ValueParser.probability("0.25") == 0.25)
        #expect(try ValueParser.probability("5%") == 0.05)
        #expect(try ValueParser.rate("250000") == 250_000)
        #expect(try ValueParser.rate("250kB") == 250_000)
        #expect(try ValueParser.rate("2MB/s") == 2_000_000)
        #expect(try ValueParser.rate("8Mbit") == 1_000_000)
        #expect(try ValueParser.rate("500kbps") == 62_500)
        #expect(try ValueParser.byteCount("64KiB") == 65_536)
        #expect(try ValueParser.byteCount("10kB") == 10_000)
        #expect(try ValueParser.blackholeWindow("5s+2.5s") == BlackholeWindow(start: .seconds(5), duration: .milliseconds(2500)))
    }

    /// Values outside the documented forms are rejected rather than guessed at.
    @Test func malformedValuesAreRejected() {
        for text in ["100", "ms", "-1s", "1h", "abc"] { #expect(throws: ImpairmentError.self) { try ValueParser.duration(text) } }
        for text in ["1.5", "-0.1", "150%", "nan", ""] { #expect(throws: ImpairmentError.self) { try ValueParser.probability(text) } }
        for text in ["fast", "-5kB", "1Tbit"] { #expect(throws: ImpairmentError.self) { try ValueParser.rate(text) } }
        for text in ["5s", "5s+", "+5s", "5s+5s+5s"] { #expect(throws: ImpairmentError.self) { try ValueParser.blackholeWindow(text) } }
    }

    /// Plain flags set both directions, up- and down- flags one, and a later flag wins.
    @Test func flagsRouteToDirections() throws {
        let configuration = try ProxyConfiguration(arguments: [
            "--listen", "127.0.0.1:5000", "--server=localhost:4433", "--loss", "0.1", "--up-loss", "0.2",
            "--down-delay", "40ms", "--jitter", "5ms", "--bandwidth", "1Mbit", "--down-queue", "32KiB",
            "--blackhole", "1s+2s", "--blackhole", "10s+1s", "--rebind-every", "10s", "--rebind-address", "--seed", "77",
        ])
        #expect(configuration.listenAddress == .loopback(1, port: 5000))
        #expect(configuration.serverAddress == .loopback(1, port: 4433))
        #expect(configuration.up.lossProbability == 0.2 && configuration.down.lossProbability == 0.1)
        #expect(configuration.up.delay == .zero && configuration.down.delay == .milliseconds(40))
        #expect(configuration.up.jitter == .milliseconds(5) && configuration.down.jitter == .milliseconds(5))
        #expect(configuration.up.bandwidth == 125_000 && configuration.down.bandwidth == 125_000)
        #expect(configuration.up.queueLimit == nil && configuration.down.queueLimit == 32_768)
        #expect(configuration.blackholes.count == 2 && configuration.blackholes[1].start == .seconds(10))
        #expect(configuration.rebindInterval == .seconds(10) && configuration.rebindChangesAddress)
        #expect(configuration.seed == 77)
    }

    /// A missing --server, an unknown flag, a stray word or a missing value is an error naming the problem.
    @Test func badCommandLinesAreRejected() {
        let cases: [([String], String)] = [
            (["--loss", "0.1"], "--server"),
            (["--server", "127.0.0.1:1", "--los", "0.1"], "--los"),
            (["--server", "127.0.0.1:1", "extra"], "extra"),
            (["--server", "127.0.0.1:1", "--delay"], "--delay"),
            (["--server", "::1:4433"], "IPv4"),
            (["--server", "10.0.0.1:4433", "--rebind-address"], "loopback"),
        ]
        for (arguments, mention) in cases {
            #expect {
                try ProxyConfiguration(arguments: arguments)
            } throws: { error in
                "\(error)".contains(mention)
            }
        }
    }

    /// Stdin commands parse to the same settings as flags; blank lines are ignored.
    @Test func commandsParse() throws {
        #expect(try ProxyCommand(parsing: "  ") == nil)
        #expect(try ProxyCommand(parsing: "stats") == .statistics)
        #expect(try ProxyCommand(parsing: "rebind-address 127.0.0.1:7") == .rebind(changeAddress: true, client: .loopback(1, port: 7)))
        #expect(try ProxyCommand(parsing: "blackhole 5s") == .blackhole(.seconds(5)))
        #expect(try ProxyCommand(parsing: "down-duplicate 0.5") == .impairment(ImpairmentSetting(option: "down-duplicate", value: "0.5")!))
        #expect(throws: ImpairmentError.self) { try ProxyCommand(parsing: "stats now") }
    }
}
