internal import CAvahi
import Glibc
import EventRuntime

/// Publishes one DNS-SD service through the system's avahi-daemon, on our event loop: under
/// Avahi's alternative name when another host has taken ours (`qchat` becomes `qchat #2`),
/// again after the daemon restarts, and withdrawn (goodbye announcements) by ``withdraw()``.
/// Without a daemon it says so once and publishes as soon as one appears.
public final class ServiceAdvertiser {
    public enum Event: Equatable, Sendable {
        /// The daemon announced the service under `name`.
        case published(name: String)
        /// `from` was taken on the network: Avahi's alternative name is tried.
        case renamed(from: String, to: String)
        /// No avahi-daemon to publish through (yet): the service is published once there is one.
        case daemonUnavailable(String)
        /// The daemon went away (stopped, restarted): published again once it is back.
        case daemonLost(String)
        case failed(String)
    }

    public let type: String
    public private(set) var name: String
    public let port: UInt16
    public private(set) var txt: TXTRecord
    /// Called on the loop thread, never inside a C call of Avahi's.
    public var onEvent: (Event) -> Void

    private let link: AvahiDaemonLink
    private var group: OpaquePointer?
    private var groupObject: UInt64 = 0

    public init(loop: EventLoop, type: String, name: String, port: UInt16, txt: TXTRecord, onEvent: @escaping (Event) -> Void = { _ in }) {
        self.type = type
        self.name = name
        self.port = port
        self.txt = txt
        self.onEvent = onEvent
        link = AvahiDaemonLink(loop: loop)
        link.onState = { [unowned self] state in daemonChanged(state) }
        link.onEvent = { [unowned self] object, event in
            guard object == groupObject, case .entryGroup(let state) = event else { return }
            groupChanged(state)
        }
    }

    deinit { withdraw() }

    public func start() { link.start() }

    /// Replaces the TXT record (a new certificate after a reload).
    public func update(txt new: TXTRecord) {
        guard new != txt else { return }
        txt = new
        guard let group, avahi_entry_group_is_empty(group) == 0 else { return }
        let list = AvahiTXTStrings.make(txt.strings)
        defer { avahi_string_list_free(list) }
        let result = avahi_entry_group_update_service_txt_strlst(group, cavahi_interface_unspecified(), cavahi_protocol_unspecified(),
                                                                  AvahiPublishFlags(0), name, type, nil, list)
        if result < 0 { onEvent(.failed("updating the TXT record: \(AvahiDaemonLink.errorText(result))")) }
    }

    /// Takes the service off the network and closes the connection to the daemon.
    public func withdraw() {
        if let group { avahi_entry_group_free(group) }
        group = nil
        link.stop()
    }

    private func daemonChanged(_ state: AvahiDaemonLink.State) {
        switch state {
        case .running:
            publish()
        case .registering:
            // The host's name is being (re)registered: our entries go back in once it is done.
            if let group { avahi_entry_group_reset(group) }
        case .absent(let why):
            onEvent(.daemonUnavailable(why))
        case .lost(let why):
            group = nil  // freed with the client
            onEvent(.daemonLost(why))
        case .starting:
            break
        }
    }

    private func publish() {
        guard let client = link.client else { return }
        if group == nil {
            let tag = link.makeTag()
            groupObject = tag.object
            group = avahi_entry_group_new(client, { _, state, userdata in
                AvahiCallbackTag.record(.entryGroup(state), userdata: userdata)
            }, tag.pointer)
            guard group != nil else { return onEvent(.failed("creating an entry group: \(link.lastError)")) }
        }
        guard let group, avahi_entry_group_is_empty(group) != 0 else { return }
        let list = AvahiTXTStrings.make(txt.strings)
        defer { avahi_string_list_free(list) }
        let added = avahi_entry_group_add_service_strlst(group, cavahi_interface_unspecified(), cavahi_protocol_unspecified(),
                                                         AvahiPublishFlags(0), name, type, nil, nil, port, list)
        if Int(added) == AVAHI_ERR_COLLISION {
            // Taken by another program on this host: the same answer as a collision on the network.
            return rename()
        }
        guard added >= 0 else { return onEvent(.failed("adding the service: \(AvahiDaemonLink.errorText(added))")) }
        let committed = avahi_entry_group_commit(group)
        if committed < 0 { onEvent(.failed("committing the service: \(AvahiDaemonLink.errorText(committed))")) }
    }

    private func groupChanged(_ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            onEvent(.published(name: name))
        case AVAHI_ENTRY_GROUP_COLLISION:
            rename()
        case AVAHI_ENTRY_GROUP_FAILURE:
            onEvent(.failed(link.lastError))
        default:
            break
        }
    }

    private func rename() {
        guard let alternative = avahi_alternative_service_name(name) else { return onEvent(.failed("no alternative name for \(name)")) }
        let taken = name
        name = String(cString: alternative)
        avahi_free(alternative)
        onEvent(.renamed(from: taken, to: name))
        if let group { avahi_entry_group_reset(group) }
        publish()
    }
}
