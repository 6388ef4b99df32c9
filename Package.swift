// swift-tools-version:6.0
import PackageDescription

/// Release builds of the hot path skip Swift's dynamic exclusivity checks: they were 17% of the
/// server's instructions per delivery (docs/PERFORMANCE.md). Debug builds, and so the tests and
/// the sanitizer runs, keep them; the compiler's static checks apply to both.
let hotPath: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "qchat",
    products: [
        .executable(name: "chat-server", targets: ["ChatServer"]),
        .executable(name: "chat-client", targets: ["ChatClient"]),
        .executable(name: "quic-echo", targets: ["QuicEcho"]),
        .executable(name: "udp-impair", targets: ["UDPImpair"]),
        .executable(name: "chat-bot", targets: ["ChatBot"]),
    ],
    targets: [
        // The C boundary with the kernel: the system calls Swift's Glibc module lacks (epoll, eventfd,
        // signalfd, recvmmsg/sendmmsg, accept4, the socket error queue, CMSG_*, mallinfo2).
        .target(name: "CLinux"),
        // The C boundary with GnuTLS: headers plus one-line shims.
        .target(name: "CGnuTLS", linkerSettings: [.linkedLibrary("gnutls")]),
        // The C boundary with ngtcp2 and ngtcp2_crypto_gnutls (GnuTLS's headers are CGnuTLS's):
        // headers plus one-line shims.
        .target(
            name: "CQuic",
            dependencies: ["CGnuTLS"],
            linkerSettings: [
                .linkedLibrary("ngtcp2"),
                .linkedLibrary("ngtcp2_crypto_gnutls"),
            ]
        ),
        // The C boundary for Redis: hiredis 0.14's RESP reader and command formatter (docs/CLUSTER.md).
        .target(name: "CHiredis", linkerSettings: [.linkedLibrary("hiredis")]),
        // The values the sans-IO engine and the runtime share: the one time type and clock
        // (MonotonicTime, TimeSpan), the one socket address, the one deadline heap, kernel randomness.
        .target(name: "RuntimeCore", swiftSettings: hotPath),
        // The one SHA-256 (GnuTLS's): file transfers, the engine's keys, the shared store's peer digests.
        .target(name: "Digest", dependencies: ["CGnuTLS", "RuntimeCore"], swiftSettings: hotPath),
        // The runtime: the epoll event loop, its waker, channels and timers, locks, UDP and TCP
        // sockets, whole-file reads and writes. Re-exports RuntimeCore.
        .target(name: "EventRuntime", dependencies: ["RuntimeCore", "CLinux"], swiftSettings: hotPath),
        // The QUIC engine, sans-IO: connections, endpoint and TLS take datagrams and time and give
        // datagrams and deadlines. No event loop, no socket.
        .target(name: "QuicEngine", dependencies: ["CQuic", "CLinux", "RuntimeCore", "Digest"], swiftSettings: hotPath),
        // The engine on the runtime: QuicDriver moves an endpoint's datagrams between UDP sockets and
        // the engine on an event loop. Re-exports QuicEngine and EventRuntime.
        .target(name: "QuicIO", dependencies: ["QuicEngine", "EventRuntime", "CLinux"], swiftSettings: hotPath),
        // In-memory network for engine tests and benchmarks: virtual clock, loss, delay, reordering.
        .target(name: "SplitMix"),
        .target(name: "QuicSimulation", dependencies: ["QuicEngine", "SplitMix"]),
        // Pure Swift chat messages, framing and validation: no C, no I/O.
        .target(name: "ChatProtocol", swiftSettings: hotPath),
        // SQLite from Debian, for history that survives a restart.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // argon2id from Debian, for password hashes (issue 13), and the Swift side of it.
        .systemLibrary(name: "CArgon2", providers: [.apt(["libargon2-dev"])]),
        .target(name: "PasswordHashing", dependencies: ["CArgon2"]),
        // avahi-client from Debian: DNS-SD on the local network through the system's avahi-daemon
        // (issue 16), and the Swift side of it, whose poll runs on our event loop.
        .systemLibrary(name: "CAvahi", providers: [.apt(["libavahi-client-dev"])]),
        .target(name: "ServiceDiscovery", dependencies: ["CAvahi", "EventRuntime"]),
        // The chat server's protocol logic: a state machine from (client, message) to actions.
        .target(name: "ChatServerCore", dependencies: ["ChatProtocol"], swiftSettings: hotPath),
        // One server's stores off the event loop: the core's store actions answered by a worker thread.
        .target(name: "LocalStore", dependencies: ["ChatServerCore", "ChatProtocol", "RuntimeCore"]),
        // The `--db` file: SQLite behind the core's stores of history, accounts, room settings and files.
        .target(name: "SQLiteStorage", dependencies: ["ChatServerCore", "ChatProtocol", "LocalStore", "RuntimeCore", "CSQLite"]),
        // The client side of the protocol on the engine: sessions for the TUI, bots and tests.
        .target(name: "ChatClientKit", dependencies: ["QuicIO", "ChatProtocol", "Digest"], swiftSettings: hotPath),
        // The full-screen UI's pure parts: neutraliser, widths, editor, key decoder, model, renderer, diffs.
        .target(name: "ChatTUI"),
        // Terminal ioctl and crash-safe terminal restore for the full-screen client.
        .target(name: "CTerminal"),
        // User-space network impairment (loss, delay, reordering, duplication, corruption, bandwidth,
        // blackholes, NAT rebinding): the kernel here has no netem. On the runtime's loop and sockets.
        .target(name: "Impairment", dependencies: ["EventRuntime", "SplitMix"]),
        .executableTarget(name: "UDPImpair", dependencies: ["Impairment", "CLIOptions"]),
        // Flag parsing shared by the executables (no outside argument parser is available).
        .target(name: "CLIOptions"),
        // The Prometheus text format, the process's figures and a strict HTTP/1.1 scrape endpoint on the event loop.
        .target(name: "Prometheus", dependencies: ["EventRuntime", "CLIOptions"]),
        .executableTarget(name: "ChatServer", dependencies: ["QuicIO", "ChatProtocol", "ChatServerCore", "CLIOptions", "PasswordHashing",
                                                             "Prometheus", "ServiceDiscovery", "ClusterStore", "RedisClient", "LocalStore", "SQLiteStorage", "Digest"],
                          swiftSettings: hotPath),
        .executableTarget(name: "ChatClient", dependencies: ["QuicIO", "ChatProtocol", "ChatClientKit", "CLIOptions", "CTerminal", "ChatTUI", "ServiceDiscovery",
                                                             "Digest"]),
        // Echo peer for engine interop tests and the transfer, handshake and memory benchmarks.
        .executableTarget(name: "QuicEcho", dependencies: ["QuicIO", "QuicSimulation", "CLIOptions"]),
        // Scripted bots and the load generator: thousands of sessions on one event loop.
        .executableTarget(name: "ChatBot", dependencies: ["QuicIO", "ChatProtocol", "ChatClientKit", "CLIOptions", "SplitMix"], swiftSettings: hotPath),
        // A Redis and Redis Cluster client on the event loop: sans-IO connections, reconnects, slots.
        .target(name: "RedisClient", dependencies: ["CHiredis", "EventRuntime"]),
        // The shared state in Redis: room events (the atomic seq/stream/publish script, gap filling,
        // the per-room sequencer), node liveness and leases, the formats of what the core stores
        // there, and a node's life in the cluster as a sans-IO state machine with its driver.
        .target(name: "ClusterStore", dependencies: ["RedisClient", "EventRuntime", "ChatServerCore", "ChatProtocol", "Digest"]),
        // Shared by the test targets: certificates, child processes, dedicated threads.
        .target(name: "TestSupport", dependencies: ["QuicEngine", "SplitMix"], path: "Tests/TestSupport"),
        // The runtime's own parts (loop, file I/O, the one deadline heap), without the engine.
        .testTarget(name: "RuntimeTests", dependencies: ["EventRuntime", "RuntimeCore", "SplitMix"]),
        .testTarget(name: "QuicEngineTests", dependencies: ["QuicEngine", "QuicIO", "QuicSimulation", "TestSupport", "SplitMix", "Digest"]),
        .testTarget(name: "DigestTests", dependencies: ["Digest"]),
        .testTarget(name: "ChatProtocolTests", dependencies: ["ChatProtocol", "SplitMix"]),
        .testTarget(name: "CLIOptionsTests", dependencies: ["CLIOptions"]),
        .testTarget(name: "PrometheusTests", dependencies: ["Prometheus", "EventRuntime", "TestSupport"]),
        .testTarget(name: "ChatTUITests", dependencies: ["ChatTUI", "SplitMix"]),
        .testTarget(name: "ImpairmentTests", dependencies: ["Impairment", "UDPImpair", "EventRuntime", "SplitMix", "TestSupport"]),
        .testTarget(name: "ChatClientTests", dependencies: ["TestSupport"]),
        .testTarget(name: "ChatClientKitTests", dependencies: ["ChatClientKit", "ChatProtocol", "QuicIO", "TestSupport", "Digest"]),
        .testTarget(name: "ChatServerCoreTests", dependencies: ["ChatServerCore", "ChatProtocol", "LocalStore", "SQLiteStorage", "SplitMix", "RuntimeCore",
                                                            "TestSupport"]),
        .testTarget(name: "PasswordHashingTests", dependencies: ["PasswordHashing"]),
        .testTarget(name: "ServiceDiscoveryTests", dependencies: ["ServiceDiscovery", "EventRuntime", "TestSupport"]),
        .testTarget(name: "ChatServerTests", dependencies: ["ChatServer", "ChatServerCore", "ChatClientKit", "QuicIO", "ChatProtocol", "TestSupport", "SplitMix",
                                                        "Digest"]),
        // make install and make deb, lintian, dpkg and systemd-analyze on what they make.
        .testTarget(name: "PackagingTests", dependencies: ["TestSupport"]),
        .testTarget(name: "RedisClientTests", dependencies: ["RedisClient", "ClusterStore", "ChatServerCore", "EventRuntime", "TestSupport"]),
        // The cluster node's state machine against a scripted Redis and an in-memory one, and the formats.
        .testTarget(name: "ClusterStoreTests", dependencies: ["ClusterStore", "ChatServerCore", "RedisClient", "EventRuntime"]),
        .testTarget(name: "ChatBotTests", dependencies: ["ChatBot", "QuicIO", "TestSupport", "SplitMix"]),
    ],
    swiftLanguageModes: [.v6]
)
