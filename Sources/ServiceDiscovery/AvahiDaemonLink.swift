internal import CAvahi
import EventRuntime

/// One avahi-client connection to the system's avahi-daemon (over the D-Bus system bus, which
/// `DBUS_SYSTEM_BUS_ADDRESS` can name), on our event loop. It outlives the daemon: when the
/// daemon goes away (a restart) the client and everything made on it are freed and a new client
/// waits for the daemon to come back; with no bus at all it tries again every few seconds.
///
/// The owner (a publisher or a browser) hears of state changes and of its objects' events from
/// the loop, after the C calls that reported them have returned.
final class AvahiDaemonLink {
    enum State: Equatable {
        case starting
        /// The daemon is up: objects can be made.
        case running
        /// The daemon is registering the host's name (at its start, or after a host name
        /// collision): published entries must be reset and added again once running.
        case registering
        /// No daemon to talk to: the bus is there but no daemon (yet), or no client could be made
        /// at all (no D-Bus system bus; tried again every few seconds). Reported once per
        /// absence, whatever changes until the daemon is there.
        case absent(String)
        /// The daemon went away; every object made on the client is gone.
        case lost(String)
    }

    static let retryInterval = TimeSpan.seconds(5)

    let poll: AvahiLoopPoll
    private let recorder = AvahiCallbackRecorder()
    private(set) var state = State.starting
    private(set) var client: OpaquePointer?
    var onState: (State) -> Void = { _ in }
    var onEvent: (UInt64, AvahiCallbackEvent) -> Void = { _, _ in }
    private var tags: [UInt64: AvahiCallbackTag] = [:]
    private var nextObject: UInt64 = 1
    private var clientObject: UInt64 = 0
    private var retryTimer: LoopTimerID?
    private var stopped = false

    init(loop: EventLoop) {
        poll = AvahiLoopPoll(loop: loop)
        loop.addTick { [weak self] in (nil, self?.deliver() ?? false) }
    }

    deinit { disconnect() }

    func start() {
        stopped = false
        connect()
    }

    /// Frees the client and all its objects (a publisher's entries are withdrawn).
    func stop() {
        stopped = true
        if let retryTimer { poll.loop.cancel(retryTimer) }
        retryTimer = nil
        disconnect()
    }

    /// The `userdata` for a new object of the owner's, and the id its events come with.
    func makeTag() -> AvahiCallbackTag {
        let tag = AvahiCallbackTag(recorder: recorder, object: nextObject)
        nextObject += 1
        tags[tag.object] = tag
        return tag
    }

    /// After the owner freed the object: later reports of it are dropped.
    func dropTag(_ object: UInt64) { tags[object] = nil }

    var lastError: String { client.map { Self.errorText(avahi_client_errno($0)) } ?? "no client" }

    static func errorText(_ code: Int32) -> String { String(cString: avahi_strerror(code)) }

    private func connect() {
        let tag = makeTag()
        clientObject = tag.object
        var error: Int32 = 0
        client = avahi_client_new(poll.api, AVAHI_CLIENT_NO_FAIL, { client, state, userdata in
            AvahiCallbackTag.record(.client(state), userdata: userdata)
        }, tag.pointer, &error)
        if client == nil {
            dropTag(tag.object)
            reportAbsence(Self.errorText(error))
            retryTimer = poll.loop.schedule(at: .now() + Self.retryInterval) { [weak self] in
                guard let self, !stopped else { return }
                retryTimer = nil
                connect()
            }
        }
    }

    private func disconnect() {
        if let client { avahi_client_free(client) }
        client = nil
        tags.removeAll()
    }

    /// Hands the recorded reports over; true when handling them recorded more (another round).
    private func deliver() -> Bool {
        for (object, event) in recorder.take() where tags[object] != nil {
            if object == clientObject, case .client(let state) = event {
                clientChanged(state)
            } else {
                onEvent(object, event)
            }
        }
        return !recorder.pending.isEmpty
    }

    private func clientChanged(_ clientState: AvahiClientState) {
        switch clientState {
        case AVAHI_CLIENT_S_RUNNING: setState(.running)
        case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION: setState(.registering)
        case AVAHI_CLIENT_CONNECTING: reportAbsence("avahi-daemon is not running")
        case AVAHI_CLIENT_FAILURE:
            let why = lastError
            disconnect()
            setState(.lost(why))
            // AVAHI_CLIENT_NO_FAIL: the new client waits for the daemon to come back.
            if !stopped { connect() }
        default:
            break
        }
    }

    private func reportAbsence(_ why: String) {
        switch state {
        case .absent, .lost: return
        default: setState(.absent(why))
        }
    }

    private func setState(_ new: State) {
        guard new != state else { return }
        state = new
        onState(new)
    }
}
