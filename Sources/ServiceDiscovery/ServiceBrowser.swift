internal import CAvahi
import Glibc
import EventRuntime

/// Browses for one DNS-SD service type through the system's avahi-daemon, on our event loop,
/// resolving each instance found and following it (a resolver stays open, so a new port or TXT
/// shows) until the network says it is gone. Survives the daemon restarting.
public final class ServiceBrowser {
    public enum Event: Equatable, Sendable {
        case appeared(DiscoveredService)
        case changed(DiscoveredService)
        case disappeared(name: String)
        /// No avahi-daemon to ask (yet): browsing starts once there is one.
        case daemonUnavailable(String)
        /// The daemon went away: everything it had found is reported gone; browsing resumes
        /// once it is back.
        case daemonLost(String)
        case failed(String)
        /// More instances than ``instanceLimit`` are on the network: the rest are not followed
        /// (reported once per browser).
        case tooMany(limit: Int)
    }

    /// Instances resolved and followed at once: each costs a resolver in avahi-daemon and an
    /// entry here, and a hostile network can announce any number of names.
    public static let instanceLimit = 256

    public let type: String
    /// Called on the loop thread, never inside a C call of Avahi's.
    public var onEvent: (Event) -> Void
    public var services: [DiscoveredService] { directory.services.values.sorted { $0.name < $1.name } }

    private let link: AvahiDaemonLink
    private var browser: OpaquePointer?
    private var browserObject: UInt64 = 0
    private var resolvers: [AvahiServiceInstance: (object: UInt64, resolver: OpaquePointer)] = [:]
    private var instances: [UInt64: AvahiServiceInstance] = [:]
    private var directory = ServiceDirectory()
    private var toldTooMany = false

    public init(loop: EventLoop, type: String, onEvent: @escaping (Event) -> Void = { _ in }) {
        self.type = type
        self.onEvent = onEvent
        link = AvahiDaemonLink(loop: loop)
        link.onState = { [unowned self] state in daemonChanged(state) }
        link.onEvent = { [unowned self] object, event in handle(object, event) }
    }

    deinit { stop() }

    public func start() { link.start() }

    public func stop() {
        forgetObjects()
        link.stop()
    }

    private func daemonChanged(_ state: AvahiDaemonLink.State) {
        switch state {
        case .running:
            browse()
        case .absent(let why):
            onEvent(.daemonUnavailable(why))
        case .lost(let why):
            // The browser and resolvers went with the client.
            browser = nil
            resolvers.removeAll()
            instances.removeAll()
            onEvent(.daemonLost(why))
            for change in directory.removeAll() { report(change) }
        case .registering, .starting:
            break
        }
    }

    private func browse() {
        guard browser == nil, let client = link.client else { return }
        let tag = link.makeTag()
        browserObject = tag.object
        browser = avahi_service_browser_new(client, cavahi_interface_unspecified(), cavahi_protocol_unspecified(), type, nil,
                                            AvahiLookupFlags(0), { _, interface, ipVersion, event, name, type, domain, _, userdata in
            let instance = AvahiServiceInstance(interface: interface, ipVersion: ipVersion, name: name.map { String(cString: $0) } ?? "",
                                                type: type.map { String(cString: $0) } ?? "", domain: domain.map { String(cString: $0) } ?? "")
            AvahiCallbackTag.record(.browser(event, instance), userdata: userdata)
        }, tag.pointer)
        if browser == nil { onEvent(.failed("browsing for \(type): \(link.lastError)")) }
    }

    private func handle(_ object: UInt64, _ event: AvahiCallbackEvent) {
        switch event {
        case .browser(let kind, let instance) where object == browserObject:
            browserReported(kind, instance)
        case .resolver(let kind, _, let resolution) where instances[object] != nil:
            guard let instance = instances[object] else { return }
            if kind == AVAHI_RESOLVER_FOUND, let resolution {
                if let change = directory.resolved(instance, resolution) { report(change) }
            } else if kind == AVAHI_RESOLVER_FAILURE {
                // Not answered in time (the host went away as it was found): the instance stays
                // unlisted until the browser reports it again.
                forget(instance)
            }
        default:
            break
        }
    }

    private func browserReported(_ kind: AvahiBrowserEvent, _ instance: AvahiServiceInstance) {
        switch kind {
        case AVAHI_BROWSER_NEW:
            resolve(instance)
        case AVAHI_BROWSER_REMOVE:
            forget(instance)
            if let change = directory.removed(instance) { report(change) }
        case AVAHI_BROWSER_FAILURE:
            onEvent(.failed("browsing for \(type): \(link.lastError)"))
        default:
            break  // ALL_FOR_NOW, CACHE_EXHAUSTED
        }
    }

    private func resolve(_ instance: AvahiServiceInstance) {
        guard resolvers[instance] == nil, let client = link.client else { return }
        guard resolvers.count < Self.instanceLimit else {
            if !toldTooMany { onEvent(.tooMany(limit: Self.instanceLimit)) }
            toldTooMany = true
            return
        }
        let tag = link.makeTag()
        // The address of the IP version the instance was found over (avahi publishes AAAA records
        // over IPv4 too): each instance gives its own family's address, IPv4 listed first.
        let made = avahi_service_resolver_new(client, instance.interface, instance.ipVersion, instance.name, instance.type,
                                              instance.domain, instance.ipVersion, AvahiLookupFlags(0), {
            _, interface, ipVersion, event, name, type, domain, hostName, address, port, txt, _, userdata in
            let instance = AvahiServiceInstance(interface: interface, ipVersion: ipVersion, name: name.map { String(cString: $0) } ?? "",
                                                type: type.map { String(cString: $0) } ?? "", domain: domain.map { String(cString: $0) } ?? "")
            var resolution: AvahiResolution?
            if event == AVAHI_RESOLVER_FOUND, let address {
                var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
                avahi_address_snprint(&text, text.count, address)
                let printed = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
                resolution = AvahiResolution(hostName: hostName.map { String(cString: $0) } ?? "", address: String(decoding: printed, as: UTF8.self),
                                             port: port, txt: AvahiTXTStrings.strings(txt))
            }
            AvahiCallbackTag.record(.resolver(event, instance, resolution), userdata: userdata)
        }, tag.pointer)
        guard let made else {
            link.dropTag(tag.object)
            return onEvent(.failed("resolving \(instance.name): \(link.lastError)"))
        }
        resolvers[instance] = (tag.object, made)
        instances[tag.object] = instance
    }

    private func forget(_ instance: AvahiServiceInstance) {
        guard let (object, resolver) = resolvers.removeValue(forKey: instance) else { return }
        avahi_service_resolver_free(resolver)
        instances[object] = nil
        link.dropTag(object)
    }

    private func forgetObjects() {
        for instance in Array(resolvers.keys) { forget(instance) }
        if let browser { avahi_service_browser_free(browser) }
        browser = nil
    }

    private func report(_ change: ServiceDirectory.Change) {
        switch change {
        case .appeared(let service): onEvent(.appeared(service))
        case .changed(let service): onEvent(.changed(service))
        case .disappeared(let name): onEvent(.disappeared(name: name))
        }
    }
}
