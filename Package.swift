// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "qchat",
    products: [
        .executable(name: "chat-server", targets: ["ChatServer"]),
        .executable(name: "chat-client", targets: ["ChatClient"]),
        .executable(name: "quic-echo", targets: ["QuicEcho"]),
    ],
    targets: [
        // The C boundary: ngtcp2, ngtcp2_crypto_gnutls and GnuTLS headers plus one-line shims.
        .target(
            name: "CQuic",
            linkerSettings: [
                .linkedLibrary("ngtcp2"),
                .linkedLibrary("ngtcp2_crypto_gnutls"),
                .linkedLibrary("gnutls"),
            ]
        ),
        // The QUIC engine: sans-IO connections and endpoint, plus the Linux UDP/epoll driver.
        .target(name: "QuicEngine", dependencies: ["CQuic"]),
        // In-memory network for engine tests and benchmarks: virtual clock, loss, delay, reordering.
        .target(name: "QuicSimulation", dependencies: ["QuicEngine"]),
        // Pure Swift chat messages, framing and validation: no C, no I/O.
        .target(name: "ChatProtocol"),
        .executableTarget(name: "ChatServer", dependencies: ["QuicEngine", "ChatProtocol"]),
        .executableTarget(name: "ChatClient", dependencies: ["QuicEngine", "ChatProtocol"]),
        // Echo peer for engine interop tests and the transfer benchmark.
        .executableTarget(name: "QuicEcho", dependencies: ["QuicEngine"]),
        .testTarget(name: "QuicEngineTests", dependencies: ["QuicEngine", "QuicSimulation"]),
        .testTarget(name: "ChatProtocolTests", dependencies: ["ChatProtocol"]),
    ],
    swiftLanguageModes: [.v6]
)
