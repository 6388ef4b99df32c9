import CLIOptions
import Glibc
import Impairment

// A reader that went away (`udp-impair ... | head`) must not kill the proxy with SIGPIPE.
signal(SIGPIPE, SIG_IGN)

// One upstream socket per client: allow as many descriptors as the hard limit lets us.
var descriptorLimit = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptorLimit) == 0, descriptorLimit.rlim_cur < descriptorLimit.rlim_max {
    descriptorLimit.rlim_cur = descriptorLimit.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &descriptorLimit)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    LineWriter.standardOutput.write(ProxyConfiguration.usage)
    exit(0)
}
if arguments.contains("--version") {
    // The proxy uses neither ngtcp2 nor GnuTLS.
    LineWriter.standardOutput.write(ProgramVersion.line(program: "udp-impair", libraries: [], speaksProtocol: false))
    exit(0)
}

do {
    let configuration = try ProxyConfiguration(arguments: arguments)
    let proxy = try ImpairmentProxy(configuration: configuration)
    // SIGINT and SIGTERM are blocked from before READY: they wait for the loop's signalfd, which
    // ends the run with final statistics, instead of killing a proxy that was just told to stop.
    var terminationSignals = sigset_t()
    sigemptyset(&terminationSignals)
    for signalNumber in [SIGINT, SIGTERM] { sigaddset(&terminationSignals, signalNumber) }
    pthread_sigmask(SIG_BLOCK, &terminationSignals, nil)
    LineWriter.standardOutput.write("READY \(proxy.listenAddress.port)")
    LineWriter.standardError.write(
        "udp-impair: relaying \(proxy.listenAddress) -> \(configuration.serverAddress), seed \(configuration.seed)")
    let final = proxy.run(
        commandInput: STDIN_FILENO, stopsOnTerminationSignals: true, output: LineWriter.standardOutput.write,
        log: LineWriter.standardError.write)
    LineWriter.standardOutput.write(final.jsonLine)
    exit(0)
} catch {
    LineWriter.standardError.write("udp-impair: \(error)")
    exit(2)
}
