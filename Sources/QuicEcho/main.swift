import CLIOptions
import Glibc
import QuicIO

// quic-echo: the engine's reference peer. `server` echoes streams and datagrams (and serves
// `SEND <n>` requests for the transfer benchmark); `client` checks an echo server, downloads,
// measures handshakes, or holds idle connections.
let usage = """
    usage: quic-echo server --cert FILE --key FILE [--host H] [--port P] [--alpn A ...] [--client-ca FILE]
                            [--retry] [--max-connections N]
           quic-echo client --host H --port P [--alpn A] (--ca FILE | --insecure) [--server-name NAME]
                            [--cert FILE --key FILE] [--bytes N] [--datagrams K] [--timeout S]
                            [--download N] [--handshakes N --concurrency C] [--idle N --hold S]
           quic-echo --version
    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    Console.error("quic-echo: \(message)")
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--version" {
    Console.line(ProgramVersion.line(program: "quic-echo", libraries: QuicLibraryVersions.all))
    exit(0)
}
guard let mode = arguments.first, mode == "server" || mode == "client" else {
    Console.error(usage)
    exit(2)
}
do {
    let options = try Options(Array(arguments.dropFirst()),
                              valued: ["host", "port", "cert", "key", "alpn", "client-ca", "max-connections", "ca",
                                       "server-name", "bytes", "datagrams", "timeout", "download", "handshakes",
                                       "concurrency", "idle", "hold"],
                              flags: ["retry", "insecure"])
    if mode == "server" {
        try EchoServer(options: options).run()
    } else {
        exit(try EchoClient(options: options).run())
    }
} catch let error as UsageError {
    fail(error.message)
} catch {
    fail("\(error)", status: 1)
}
