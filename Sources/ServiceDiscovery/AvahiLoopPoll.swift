internal import CAvahi
import Glibc
import EventRuntime

/// Avahi's poll API (`AvahiPoll`) over our own event loop, so avahi-client and the D-Bus
/// connection under it run on the loop's thread like everything else: no threaded poll, no
/// thread of Avahi's own. Watches become epoll interest (level-triggered, as poll(2) is; the
/// watch bits are poll's, which are epoll's), timeouts become the loop's timers.
///
/// libdbus may watch one descriptor twice (reading and writing): the loop's interest is the union
/// of a descriptor's live watches, and a descriptor no watch wants anything of leaves epoll, so
/// a hang-up nobody listens for cannot spin the loop. Avahi frees watches and timeouts from
/// inside their own callbacks: a freed one is marked dead and dropped by the list, while the
/// dispatch in progress holds it until it returns.
final class AvahiLoopPoll {
    let loop: EventLoop
    /// Handed to `avahi_client_new`; lives as long as this object.
    let api: UnsafeMutablePointer<AvahiPoll>
    private var watches: [Int32: [Watch]] = [:]
    private var watchedDescriptors: Set<Int32> = []

    final class Watch {
        let descriptor: Int32
        var events: UInt32
        /// The events of the callback in progress (`watch_get_events`).
        var happened: UInt32 = 0
        let callback: AvahiWatchCallback
        let userdata: UnsafeMutableRawPointer?
        unowned let poll: AvahiLoopPoll
        var isLive = true

        init(descriptor: Int32, events: UInt32, callback: @escaping AvahiWatchCallback, userdata: UnsafeMutableRawPointer?, poll: AvahiLoopPoll) {
            self.descriptor = descriptor
            self.events = events
            self.callback = callback
            self.userdata = userdata
            self.poll = poll
        }

        var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
        static func from(_ handle: OpaquePointer?) -> Watch { Unmanaged<Watch>.fromOpaque(UnsafeRawPointer(handle!)).takeUnretainedValue() }
    }

    final class Timeout {
        var timer: LoopTimerID?
        let callback: AvahiTimeoutCallback
        let userdata: UnsafeMutableRawPointer?
        unowned let poll: AvahiLoopPoll
        var isLive = true

        init(callback: @escaping AvahiTimeoutCallback, userdata: UnsafeMutableRawPointer?, poll: AvahiLoopPoll) {
            self.callback = callback
            self.userdata = userdata
            self.poll = poll
        }

        var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
        static func from(_ handle: OpaquePointer?) -> Timeout { Unmanaged<Timeout>.fromOpaque(UnsafeRawPointer(handle!)).takeUnretainedValue() }
    }

    init(loop: EventLoop) {
        self.loop = loop
        api = .allocate(capacity: 1)
        api.initialize(to: AvahiPoll())
        api.pointee.userdata = Unmanaged.passUnretained(self).toOpaque()
        api.pointee.watch_new = AvahiLoopPoll.watchNew
        api.pointee.watch_update = { handle, events in
            let watch = Watch.from(handle)
            watch.events = events.rawValue
            watch.poll.updateInterest(watch.descriptor)
        }
        api.pointee.watch_get_events = { handle in AvahiWatchEvent(rawValue: Watch.from(handle).happened) }
        api.pointee.watch_free = { handle in
            let watch = Watch.from(handle)
            watch.isLive = false
            watch.poll.remove(watch)
            Unmanaged.passUnretained(watch).release()
        }
        api.pointee.timeout_new = AvahiLoopPoll.timeoutNew
        api.pointee.timeout_update = { handle, time in
            let timeout = Timeout.from(handle)
            timeout.poll.arm(timeout, at: time)
        }
        api.pointee.timeout_free = { handle in
            let timeout = Timeout.from(handle)
            timeout.isLive = false
            timeout.poll.arm(timeout, at: nil)
            Unmanaged.passUnretained(timeout).release()
        }
    }

    deinit {
        for descriptor in watchedDescriptors { loop.unwatch(descriptor) }
        api.deinitialize(count: 1)
        api.deallocate()
    }

    private static let watchNew: @convention(c) (UnsafePointer<AvahiPoll>?, Int32, AvahiWatchEvent, AvahiWatchCallback?,
                                                 UnsafeMutableRawPointer?) -> OpaquePointer? = { api, descriptor, events, callback, userdata in
        guard let api, let callback, let owner = api.pointee.userdata else { return nil }
        let poll = Unmanaged<AvahiLoopPoll>.fromOpaque(owner).takeUnretainedValue()
        let watch = Watch(descriptor: descriptor, events: events.rawValue, callback: callback, userdata: userdata, poll: poll)
        poll.watches[descriptor, default: []].append(watch)
        poll.updateInterest(descriptor)
        return OpaquePointer(Unmanaged.passRetained(watch).toOpaque())
    }

    private static let timeoutNew: @convention(c) (UnsafePointer<AvahiPoll>?, UnsafePointer<timeval>?, AvahiTimeoutCallback?,
                                                   UnsafeMutableRawPointer?) -> OpaquePointer? = { api, time, callback, userdata in
        guard let api, let callback, let owner = api.pointee.userdata else { return nil }
        let poll = Unmanaged<AvahiLoopPoll>.fromOpaque(owner).takeUnretainedValue()
        let timeout = Timeout(callback: callback, userdata: userdata, poll: poll)
        poll.arm(timeout, at: time)
        return OpaquePointer(Unmanaged.passRetained(timeout).toOpaque())
    }

    // MARK: Watches

    private func remove(_ watch: Watch) {
        watches[watch.descriptor]?.removeAll { $0 === watch }
        if watches[watch.descriptor]?.isEmpty == true { watches[watch.descriptor] = nil }
        updateInterest(watch.descriptor)
    }

    /// The loop watches a descriptor for the union of what its live watches want.
    private func updateInterest(_ descriptor: Int32) {
        let wanted = (watches[descriptor] ?? []).reduce(UInt32(0)) { $0 | $1.events }
        let events = DescriptorEvents(rawValue: wanted).intersection([.readable, .writable])
        if events.isEmpty {
            if watchedDescriptors.remove(descriptor) != nil { loop.unwatch(descriptor) }
        } else if watchedDescriptors.contains(descriptor) {
            loop.rewatch(descriptor, for: events)
        } else if (try? loop.watch(descriptor, for: events, { [unowned self] ready in dispatch(descriptor, ready) })) != nil {
            watchedDescriptors.insert(descriptor)
        }
    }

    private func dispatch(_ descriptor: Int32, _ ready: DescriptorEvents) {
        // A copy: callbacks add and free watches.
        for watch in watches[descriptor] ?? [] where watch.isLive {
            let relevant = ready.rawValue & (watch.events | DescriptorEvents.error.rawValue | DescriptorEvents.hangUp.rawValue)
            guard relevant != 0, watch.events != 0 else { continue }
            watch.happened = relevant
            watch.callback(watch.handle, descriptor, AvahiWatchEvent(rawValue: relevant), watch.userdata)
            watch.happened = 0
        }
    }

    // MARK: Timeouts

    /// Avahi's times are absolute wall-clock times; the loop's are monotonic.
    private func arm(_ timeout: Timeout, at time: UnsafePointer<timeval>?) {
        if let timer = timeout.timer { loop.cancel(timer) }
        timeout.timer = nil
        guard let time, timeout.isLive else { return }
        var now = timeval()
        gettimeofday(&now, nil)
        let microseconds = (Int64(time.pointee.tv_sec) - Int64(now.tv_sec)) * 1_000_000 + Int64(time.pointee.tv_usec) - Int64(now.tv_usec)
        let deadline = MonotonicTime.now() + .microseconds(UInt64(max(0, microseconds)))
        timeout.timer = loop.schedule(at: deadline) { [unowned timeout] in
            timeout.timer = nil
            guard timeout.isLive else { return }
            // Held while it runs: the callback may free it.
            withExtendedLifetime(timeout) { timeout.callback(timeout.handle, timeout.userdata) }
        }
    }
}
