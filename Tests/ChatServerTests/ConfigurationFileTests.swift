@testable import ChatServer
import ChatServerCore
import QuicEngine
import RedisClient
import Foundation
import TestSupport
import Testing

/// `--config FILE`: every flag has a key, flags win over the file, and mistakes name their line.
@Suite("chat-server configuration file")
struct ConfigurationFileTests {
    private static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Every key sets what its flag sets; a flag given too wins.
    @Test func keysSetWhatFlagsSet() throws {
        let path = try Self.file("""
            # comments and blank lines are ignored

            host = ::1
            port = 5000
            cert = /etc/ssl/certs/qchat.pem
            key = /etc/ssl/private/qchat.key
            client-ca = /etc/qchat/clients.pem
            history = 50
            db = /var/lib/qchat/history.db
            max-clients = 300
            sendq = 65536
            replay-limit = 131072
            coalesce-ms = 2.5
            idle-memory-after = 0
            max-per-address = 4
            exempt = 10.0.0.0/8, ::1/128
            max-rooms-per-client = 7
            idle-rooms = 9
            flood-burst = 11
            flood-rate = 2.5
            typing-rate = 3
            name = Filed
            retry = on
            retry-above = 12
            log-level = warning
            log-format = json
            metrics = 9464
            metrics-connections = 13
            metrics-request-bytes = 1024
            metrics-timeout = 2.5
            metrics-cache = 0.5
            operator = alice, bob
            accounts-only = yes
            password-queue = 14
            password-workers = 2
            cluster = redis-cluster://10.0.0.1:7000,10.0.0.2:7000
            node = filed
            cluster-wait-replicas = 2
            cluster-node-timeout = 9
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let options = try ServerOptions(["--config", path, "--port", "6000", "--name", "Flagged", "--exempt", "none"])
        #expect(options.host == "::1")
        #expect(options.port == 6000)
        #expect(options.certificate == "/etc/ssl/certs/qchat.pem" && options.key == "/etc/ssl/private/qchat.key")
        #expect(options.clientCA == "/etc/qchat/clients.pem")
        #expect(options.core.historyPerRoom == 50 && options.databasePath == "/var/lib/qchat/history.db")
        #expect(options.maxClients == 300 && options.sendQueueLimit == 65536 && options.replayLimit == 131072)
        #expect(options.coalesceMilliseconds == 2.5)
        #expect(ChatServerApp.serverConfiguration(options).connection.coalescingWindow == .microseconds(2500))
        #expect(options.idleMemorySeconds == 0 && ChatServerApp.serverConfiguration(options).connection.idleMemoryDelay == nil)
        #expect(options.maxPerAddress == 4 && options.exemptAddresses.isEmpty)
        #expect(options.core.maxRoomsPerClient == 7 && options.core.idleRoomLimit == 9)
        #expect(options.core.floodBurst == 11 && options.core.floodPerSecond == 2.5 && options.core.typingPerSecond == 3)
        #expect(options.core.serverName == "Flagged")
        #expect(options.retry && options.retryAboveHandshakes == 12)
        #expect(options.logLevel == .warning && options.logFormat == .json)
        #expect(options.metrics.address?.description == "127.0.0.1:9464")
        #expect(options.metrics.maxConnections == 13 && options.metrics.maxRequestBytes == 1024)
        #expect(options.metrics.timeout == .milliseconds(2500) && options.metrics.cacheLifetime == .milliseconds(500))
        #expect(options.core.operators == ["alice", "bob"] && options.core.accountsOnly)
        #expect(options.core.passwordQueueLimit == 14 && options.passwordWorkers == 2)
        #expect(options.cluster?.node == "filed" && options.cluster?.waitReplicas == 2)
        #expect(options.cluster?.nodeTimeout == .seconds(9) && options.cluster?.heartbeatInterval == .seconds(3))
        #expect(options.cluster?.topology == .cluster(seeds: [RedisServerAddress(host: "10.0.0.1", port: 7000),
                                                              RedisServerAddress(host: "10.0.0.2", port: 7000)]))
        #expect(options.configurationFile == path)
    }

    /// Every flag but --config, --help and --version is a key of the file, and the shipped example names each one.
    @Test func everyFlagHasAKeyInTheExample() throws {
        let example = try String(contentsOf: BuildPaths.repository.appendingPathComponent("packaging/chat-server.conf.example"), encoding: .utf8)
        let keys = Set(example.split(separator: "\n").compactMap { line -> String? in
            let text = line.hasPrefix("#") ? line.dropFirst() : line[...]
            guard let equals = text.firstIndex(of: "="), !text.hasPrefix(" ") else { return nil }
            return text[..<equals].trimmingCharacters(in: .whitespaces)
        })
        let flags = ServerOptions.valued.union(ServerOptions.switches).union(ServerOptions.optionallyValued)
            .subtracting(ServerOptions.onlyOnCommandLine)
        #expect(flags.subtracting(keys).isEmpty, "not in the example: \(flags.subtracting(keys).sorted())")
        #expect(keys.subtracting(flags).isEmpty, "not flags: \(keys.subtracting(flags).sorted())")
        for flag in ServerOptions.valued.union(ServerOptions.switches) {
            #expect(ServerOptions.usage.contains("--\(flag)"), "--\(flag) is missing from --help")
        }
    }

    /// The shipped example starts a server as it is, with flags for what differs on a test machine.
    @Test func shippedExampleStartsAServer() throws {
        let example = BuildPaths.repository.appendingPathComponent("packaging/chat-server.conf.example").path
        let database = temporaryDatabasePath()
        defer { try? FileManager.default.removeItem(atPath: database) }
        let server = try ChatServerProcess(exactly: ["--config", example, "--host", "127.0.0.1", "--port", "0",
                                                     "--cert", TestCertificates.serverCertificate, "--key", TestCertificates.serverKey,
                                                     "--db", database, "--metrics", "127.0.0.1:0"])
        defer { server.stop() }
        #expect(server.metricsPort != nil)
        #expect(try HTTPProbe.get(port: try #require(server.metricsPort)).status == 200)
    }

    /// Mistakes in the file name the file and the line, or the flag when the flag is wrong; one line on stderr, status 2.
    @Test func mistakesNameTheirLine() throws {
        // Two lines of certificate and key come first: the mistakes are on lines 3 and 4.
        let cases: [(file: String, flags: [String], says: String)] = [
            ("name = x\nflood-burst = lots\n", [], "line 4: flood-burst must be a whole number in 1...1000000, not 'lots'"),
            ("colour = blue\n", [], "line 3: unknown setting 'colour'"),
            ("retry = perhaps\n", [], "line 3: retry must be on or off, not 'perhaps'"),
            ("log-format = xml\n", [], "line 3: log-format must be text or json, not 'xml'"),
            ("exempt = nowhere\n", [], "line 3: exempt must be an address or CIDR block"),
            ("metrics = everywhere\n", [], "line 3: metrics must be PORT, HOST:PORT or [IPv6]:PORT"),
            ("just words\n", [], "line 3: expected 'key = value'"),
            ("flood-burst = 3\n", ["--flood-burst", "many"], "--flood-burst must be a whole number"),
            ("cluster-wait-replicas = 1\n", [], "line 3: cluster-wait-replicas is for a node of a cluster: give --cluster too"),
            ("cluster = redis://127.0.0.1:1\ncluster-wait-replicas = many\n", [],
             "line 4: cluster-wait-replicas must be a whole number in 0...5, not 'many'"),
        ]
        for mistake in cases {
            let path = try Self.file("cert = \(TestCertificates.serverCertificate)\nkey = \(TestCertificates.serverKey)\n" + mistake.file)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let finished = try ChildProcess(BuildPaths.product("chat-server"), ["--config", path, "--port", "0"] + mistake.flags).finish(timeout: 10)
            #expect(finished.status == 2, "\(finished.errors)")
            #expect(finished.errors.contains(mistake.says), "\(finished.errors)")
            #expect(finished.errors.split(separator: "\n").count == 1, "\(finished.errors)")
        }
    }

    /// A file that cannot be read, or is over 1 MiB, is refused before anything starts.
    @Test func unreadableOrHugeFilesAreRefused() throws {
        let missing = try ChildProcess(BuildPaths.product("chat-server"), ["--config", "/nonexistent/chat-server.conf"]).finish(timeout: 10)
        #expect(missing.status == 2 && missing.errors.contains("cannot read configuration file /nonexistent/chat-server.conf"), "\(missing.errors)")
        let huge = try Self.file(String(repeating: "# padding padding padding padding padding padding padding\n", count: 20_000))
        defer { try? FileManager.default.removeItem(atPath: huge) }
        let refused = try ChildProcess(BuildPaths.product("chat-server"), ["--config", huge]).finish(timeout: 10)
        #expect(refused.status == 2 && refused.errors.contains("longer than 1048576 bytes"), "\(refused.errors)")
    }

    /// `--metrics` takes a port (loopback), HOST:PORT or [IPv6]:PORT, and nothing else.
    @Test func metricsAddresses() {
        #expect(MetricsOptions.address("9464")?.description == "127.0.0.1:9464")
        #expect(MetricsOptions.address("0.0.0.0:9000")?.description == "0.0.0.0:9000")
        #expect(MetricsOptions.address("[::1]:9464")?.isIPv6 == true)
        #expect(MetricsOptions.address("localhost:9464") != nil)
        for bad in ["", ":9464", "::1:9464", "[::1]", "[::1]9464", "host:", "host:99999", "127.0.0.1:port"] {
            #expect(MetricsOptions.address(bad) == nil, "\(bad)")
        }
    }
}
