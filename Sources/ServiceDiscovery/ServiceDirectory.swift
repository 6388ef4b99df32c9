import EventRuntime

/// The services of one type on the network as the browser reports them, one entry per instance
/// name: the daemon reports an instance per interface and IP version, and a name appears when
/// the first of its instances resolves and disappears with the last. Pure bookkeeping, no I/O.
struct ServiceDirectory {
    enum Change: Equatable {
        case appeared(DiscoveredService)
        case changed(DiscoveredService)
        case disappeared(String)
    }

    private var resolved: [AvahiServiceInstance: AvahiResolution] = [:]
    private(set) var services: [String: DiscoveredService] = [:]

    /// A resolver found (or updated) an instance.
    mutating func resolved(_ instance: AvahiServiceInstance, _ resolution: AvahiResolution) -> Change? {
        resolved[instance] = resolution
        return refresh(instance.name)
    }

    /// The browser says an instance is gone.
    mutating func removed(_ instance: AvahiServiceInstance) -> Change? {
        guard resolved.removeValue(forKey: instance) != nil else { return nil }
        return refresh(instance.name)
    }

    /// Everything is gone at once (the daemon went away).
    mutating func removeAll() -> [Change] {
        resolved.removeAll()
        defer { services.removeAll() }
        return services.keys.sorted().map { .disappeared($0) }
    }

    private mutating func refresh(_ name: String) -> Change? {
        let instances = resolved.filter { $0.key.name == name }.sorted { Self.order($0.key, $1.key) }
        guard let first = instances.first else {
            return services.removeValue(forKey: name) == nil ? nil : .disappeared(name)
        }
        var addresses: [SocketAddress] = []
        for (instance, resolution) in instances {
            guard let address = Self.address(resolution.address, port: resolution.port, interface: instance.interface),
                  !addresses.contains(address) else { continue }
            addresses.append(address)
        }
        addresses.sort { !$0.isIPv6 && $1.isIPv6 }
        let service = DiscoveredService(name: name, hostName: first.value.hostName, addresses: addresses, port: first.value.port,
                                        txt: TXTRecord(strings: first.value.txt))
        let previous = services.updateValue(service, forKey: name)
        if previous == nil { return .appeared(service) }
        return previous == service ? nil : .changed(service)
    }

    /// IPv4 instances first, then by interface, so the TXT and port shown do not flip.
    private static func order(_ one: AvahiServiceInstance, _ other: AvahiServiceInstance) -> Bool {
        (one.ipVersion, one.interface, one.domain) < (other.ipVersion, other.interface, other.domain)
    }

    /// A link-local IPv6 address needs the interface it was found on as its scope.
    static func address(_ text: String, port: UInt16, interface: Int32) -> SocketAddress? {
        guard let parsed = SocketAddress(host: text, port: port) else { return nil }
        if case .v6(let bits, let port, _) = parsed, text.lowercased().hasPrefix("fe80:") {
            return .v6(address: bits, port: port, scope: UInt32(max(0, interface)))
        }
        return parsed
    }
}
