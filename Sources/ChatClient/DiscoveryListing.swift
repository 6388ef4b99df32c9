import CLIOptions
import Glibc
import QuicIO
import ServiceDiscovery

/// `chat-client --discover` in line mode: one line per server as it appears, changes and goes
/// (``ServerLookup/line(_:json:)``), for `--wait` seconds or, with `--wait 0`, until SIGINT or
/// SIGTERM. Exit status 0 when a server was seen, 1 when none was or avahi-daemon is missing.
final class DiscoveryListing {
    private let options: ClientOptions
    private let loop: EventLoop
    private var browser: ServiceBrowser!
    private var seen = 0
    private var status: Int32 = 0

    init(options: ClientOptions) throws {
        self.options = options
        loop = try EventLoop()
        browser = ServiceBrowser(loop: loop, type: ServerLookup.serviceType) { [unowned self] event in received(event) }
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned self] _ in loop.stop() }
    }

    func run() -> Int32 {
        if options.waitSeconds > 0 {
            loop.schedule(at: .now() + .seconds(UInt64(options.waitSeconds))) { [unowned self] in loop.stop() }
        }
        browser.start()
        loop.run()
        browser.stop()
        if status == 0 && seen == 0 {
            Console.error("chat-client: no qchat server found on the local network within \(options.waitSeconds) s")
            return 1
        }
        return status
    }

    private func received(_ event: ServiceBrowser.Event) {
        switch event {
        case .appeared:
            seen += 1
        case .daemonUnavailable(let why):
            Console.error("chat-client: \(ServerLookup.noDaemon(why))")
            status = 1
            return loop.stop()
        case .daemonLost(let why):
            Console.error("chat-client: avahi-daemon went away (\(why)); listing again once it is back")
        case .failed(let why):
            Console.error("chat-client: cannot browse the local network: \(why)")
            status = 1
            return loop.stop()
        case .tooMany(let limit):
            Console.error("chat-client: more than \(limit) services on the local network: the others are not listed")
        case .changed, .disappeared:
            break
        }
        if let line = ServerLookup.line(event, json: options.json) { Console.line(line) }
    }
}
