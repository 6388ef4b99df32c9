import CLIOptions
import ChatTUI
import Glibc
import QuicIO
import ServiceDiscovery

/// `chat-client --discover` on a terminal: the qchat servers on the local network, full screen,
/// as they appear and go; ↑/↓ (or a digit) choose, Enter connects to the one chosen, q, Esc or
/// Ctrl-C give up. Its own event loop, ended before the chat's starts.
final class DiscoveryPicker {
    private let loop: EventLoop
    private let terminal = RawTerminal()
    private var browser: ServiceBrowser!
    private let keys: TerminalKeys
    private var services: [DiscoveredService] = []
    private var selected = 0
    private var problem: String?
    private var chosen: DiscoveredService?

    init() throws {
        loop = try EventLoop()
        keys = TerminalKeys(loop: loop)
        browser = ServiceBrowser(loop: loop, type: ServerLookup.serviceType) { [unowned self] event in received(event) }
        try loop.handleSignals([SIGINT, SIGTERM, SIGWINCH, SIGHUP]) { [unowned self] signal in
            if signal == SIGWINCH { return draw() }
            loop.stop()
        }
    }

    /// The server chosen; nil when the person gave up. Throws when there is no avahi-daemon.
    func run() throws -> DiscoveredService? {
        keys.onKey = { [unowned self] key in handle(key) }
        try terminal.enter()
        defer { terminal.leave() }
        let flags = fcntl(0, F_GETFL)
        _ = fcntl(0, F_SETFL, flags | O_NONBLOCK)
        try loop.watchReadable(0) { [unowned self] in readKeys() }
        browser.start()
        draw()
        loop.run()
        browser.stop()
        loop.unwatch(0)
        _ = fcntl(0, F_SETFL, flags)
        terminal.leave()
        if let problem { throw UsageError(problem) }
        return chosen
    }

    private func received(_ event: ServiceBrowser.Event) {
        let current = services.indices.contains(selected) ? services[selected].name : nil
        switch event {
        case .appeared(let service), .changed(let service):
            services.removeAll { $0.name == service.name }
            services.append(service)
            services.sort { $0.name < $1.name }
        case .disappeared(let name):
            services.removeAll { $0.name == name }
        case .daemonUnavailable(let why):
            problem = ServerLookup.noDaemon(why)
            return loop.stop()
        case .failed(let why):
            problem = "cannot browse the local network: \(why)"
            return loop.stop()
        case .daemonLost, .tooMany:
            break
        }
        // The selection stays on the same server while others come and go.
        if let current, let index = services.firstIndex(where: { $0.name == current }) { selected = index }
        selected = min(selected, max(0, services.count - 1))
        draw()
    }

    private func readKeys() {
        if !keys.read() { loop.stop() }
    }

    private func handle(_ key: KeyEvent) {
        switch key {
        case .up, .control("p"): selected = max(0, selected - 1)
        case .down, .control("n"): selected = min(max(0, services.count - 1), selected + 1)
        case .enter:
            guard services.indices.contains(selected), services[selected].address != nil else { return }
            chosen = services[selected]
            return loop.stop()
        case .escape, .control("c"), .control("d"), .text("q"):
            return loop.stop()
        case .text(let text) where text.count == 1 && ("1"..."9").contains(text):
            let index = Int(text)! - 1
            if services.indices.contains(index) { selected = index }
        default:
            return
        }
        draw()
    }

    private func draw() {
        guard terminal.isActive else { return }
        let (columns, rows) = terminal.size
        var lines = ["qchat servers on the local network: ↑/↓ or 1-9 choose, Enter connects, q gives up", ""]
        if services.isEmpty { lines.append("  looking (avahi-daemon, _qchat._udp)...") }
        for (index, service) in services.enumerated() {
            let address = service.address.map { "\($0)" } ?? "(no address)"
            let print = service.fingerprint.isEmpty ? "no fp" : String(service.fingerprint.prefix(7 + 16)) + "…"
            let line = "\(index < 9 ? "\(index + 1)" : " ") \(TextNeutralizer.singleLine.neutralize(service.name))  \(address)  \(print)"
            lines.append(index == selected ? "\u{1B}[7m" + Self.clip(line, to: columns) + "\u{1B}[0m" : Self.clip(line, to: columns))
        }
        var screen = "\u{1B}[H\u{1B}[2J"
        screen += lines.prefix(max(1, rows)).map { $0.hasPrefix("\u{1B}") ? $0 : Self.clip($0, to: columns) }.joined(separator: "\r\n")
        terminal.write(screen)
    }

    /// At most `columns` terminal columns.
    private static func clip(_ text: String, to columns: Int) -> String {
        var used = 0
        var kept = ""
        for character in text {
            let width = DisplayWidth.columns(of: character)
            if used + width > columns { break }
            used += width
            kept.append(character)
        }
        return kept
    }
}
