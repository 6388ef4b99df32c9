import CLIOptions
import ChatProtocol
import QuicIO
import ServiceDiscovery

/// `--server NAME` and `--discover`: qchat servers on the local network (PROTOCOL.md section 11),
/// browsed for through avahi-daemon on an event loop of their own that ends before the chat's
/// loop starts.
enum ServerLookup {
    static let serviceType = "_qchat._udp"

    /// Looks for the server advertised as `name` for `wait` seconds (0: until it appears) and
    /// points `options` at it: its address, port and the fingerprint it advertised.
    static func find(_ name: String, for options: inout ClientOptions) throws {
        let loop = try EventLoop()
        var found: DiscoveredService?
        var problem: String?
        let browser = ServiceBrowser(loop: loop, type: serviceType) { event in
            switch event {
            case .appeared(let service), .changed(let service):
                guard service.name == name, service.address != nil else { return }
                found = service
            case .daemonUnavailable(let why):
                problem = noDaemon(why)
            case .failed(let why):
                problem = "cannot browse the local network: \(why)"
            case .disappeared, .daemonLost, .tooMany:
                return
            }
            if found != nil || problem != nil { loop.stop() }
        }
        if options.waitSeconds > 0 {
            // `unowned`: the loop owns its timers. Holding the loop from its own timer made a
            // cycle whenever `run()` ended before the deadline (the server found, no daemon):
            // the loop, and the storage of every watch and timeout Avahi had put in it, lived
            // on after `find` returned (LeakSanitizer's report; docs/SANITIZERS.md).
            loop.schedule(at: .now() + .seconds(UInt64(options.waitSeconds))) { [unowned loop] in loop.stop() }
        }
        browser.start()
        loop.run()
        browser.stop()
        if let problem { throw UsageError(problem) }
        guard let found, let address = found.address else {
            throw UsageError("no server named '\(name)' found on the local network within \(options.waitSeconds) s "
                + "(chat-client --discover lists those there are; --wait S looks longer)")
        }
        options.host = address.host
        options.port = found.port
        options.advertisedFingerprint = found.fingerprint
        options.advertisedName = found.name
    }

    static func noDaemon(_ why: String) -> String {
        "no avahi-daemon to ask about the local network (\(why)): start it, or connect with --host and --port"
    }

    /// One line per change, for scripts: `+` NAME ADDRESS PORT FP V ALPN, `-` NAME, tab-separated,
    /// with control characters in names shown as `?`; or one JSON object per change.
    static func line(_ event: ServiceBrowser.Event, json: Bool) -> String? {
        switch event {
        case .appeared(let service), .changed(let service):
            let address = service.address?.host ?? ""
            if json {
                return "{\"event\":\"\(isAppeared(event) ? "appeared" : "changed")\",\"name\":\(JSONString.quoted(service.name)),"
                    + "\"address\":\(JSONString.quoted(address)),\"port\":\(service.port),\"fp\":\(JSONString.quoted(service.fingerprint)),"
                    + "\"v\":\(JSONString.quoted(service.version)),\"alpn\":\(JSONString.quoted(service.alpn))}"
            }
            return ["+", printable(service.name), address, "\(service.port)", printable(service.fingerprint), printable(service.version),
                    printable(service.alpn)].joined(separator: "\t")
        case .disappeared(let name):
            return json ? "{\"event\":\"disappeared\",\"name\":\(JSONString.quoted(name))}" : "-\t\(printable(name))"
        case .daemonUnavailable, .daemonLost, .failed, .tooMany:
            return nil
        }
    }

    private static func isAppeared(_ event: ServiceBrowser.Event) -> Bool {
        if case .appeared = event { return true }
        return false
    }

    /// What the network sent, safe on a terminal and in a tab-separated line.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? "?" : $0 }))
    }
}
