internal import CAvahi

/// What one of avahi-client's C callbacks reported, recorded as it happened and handed to Swift
/// code by the event loop once the C call that made it has returned: a callback never calls
/// into the application, and the application never runs inside a C call of Avahi's.
enum AvahiCallbackEvent {
    case client(AvahiClientState)
    case entryGroup(AvahiEntryGroupState)
    case browser(AvahiBrowserEvent, AvahiServiceInstance)
    case resolver(AvahiResolverEvent, AvahiServiceInstance, AvahiResolution?)
}

/// One instance of a service as the daemon names it: on an interface, over IPv4 or IPv6.
struct AvahiServiceInstance: Hashable {
    let interface: Int32
    let ipVersion: Int32
    let name: String
    let type: String
    let domain: String
}

/// What resolving an instance found.
struct AvahiResolution {
    let hostName: String
    let address: String
    let port: UInt16
    let txt: [String]
}

/// Where the C callbacks put what they report: `userdata` of every Avahi object is a tag naming
/// the recorder and the object, so a late report of an object already gone is dropped.
final class AvahiCallbackRecorder {
    private(set) var pending: [(object: UInt64, event: AvahiCallbackEvent)] = []

    func record(_ event: AvahiCallbackEvent, for object: UInt64) { pending.append((object, event)) }

    func take() -> [(object: UInt64, event: AvahiCallbackEvent)] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
}

/// The `userdata` of one Avahi object.
final class AvahiCallbackTag {
    unowned let recorder: AvahiCallbackRecorder
    let object: UInt64

    init(recorder: AvahiCallbackRecorder, object: UInt64) {
        self.recorder = recorder
        self.object = object
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func record(_ event: AvahiCallbackEvent, userdata: UnsafeMutableRawPointer?) {
        guard let userdata else { return }
        let tag = Unmanaged<AvahiCallbackTag>.fromOpaque(userdata).takeUnretainedValue()
        tag.recorder.record(event, for: tag.object)
    }
}
