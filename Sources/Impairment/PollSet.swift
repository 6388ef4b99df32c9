import Glibc

/// The descriptors the loop waits on, kept as one `pollfd` array that is edited in place (not
/// rebuilt per wait) because clients and rebinds add and remove sockets while packets flow.
///
/// poll(2) rather than epoll: Glibc's Swift module exposes no epoll, and this package has no C
/// target. poll costs O(descriptors) per wait, which is fine for hundreds of clients.
struct PollSet {
    private var entries: [pollfd] = []
    private var indexByDescriptor: [Int32: Int] = [:]
    private var ready: [Int32] = []

    var count: Int { entries.count }

    mutating func add(_ descriptor: Int32) {
        guard indexByDescriptor[descriptor] == nil else { return }
        indexByDescriptor[descriptor] = entries.count
        entries.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
    }

    /// Swap-removes, so removal is O(1) and the array never has holes.
    mutating func remove(_ descriptor: Int32) {
        guard let index = indexByDescriptor.removeValue(forKey: descriptor) else { return }
        let last = entries.count - 1
        if index != last {
            entries[index] = entries[last]
            indexByDescriptor[entries[index].fd] = index
        }
        entries.removeLast()
    }

    /// Waits until a descriptor is readable (or has an error to report) or the timeout passes
    /// (-1: forever), and returns the readable ones. The returned array is reused by the next call.
    mutating func wait(timeoutMilliseconds: Int32) throws(ImpairmentError) -> [Int32] {
        ready.removeAll(keepingCapacity: true)
        let readyCount = try entries.withUnsafeMutableBufferPointer { buffer throws(ImpairmentError) in
            try systemCall("poll") { poll(buffer.baseAddress, nfds_t(buffer.count), timeoutMilliseconds) }
        }
        guard readyCount > 0 else { return ready }
        for index in entries.indices where entries[index].revents != 0 {
            ready.append(entries[index].fd)
            entries[index].revents = 0
            if ready.count == readyCount { break }
        }
        return ready
    }
}
