import Glibc

/// A self-pipe that wakes the loop from other threads and from signal handlers (Glibc's module has
/// no eventfd). Writing is async-signal-safe; a full pipe already means "wake up", so a failed
/// write is ignored.
final class LoopWaker: Sendable {
    let readDescriptor: Int32
    let writeDescriptor: Int32

    init() throws(ImpairmentError) {
        var descriptors: [Int32] = [-1, -1]
        try systemCall("pipe") { pipe(&descriptors) }
        do {
            for descriptor in descriptors {
                let flags = try systemCall("fcntl F_GETFL") { fcntl(descriptor, F_GETFL) }
                try systemCall("fcntl F_SETFL") { fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
                try systemCall("fcntl F_SETFD") { fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            }
        } catch {
            close(descriptors[0])
            close(descriptors[1])
            throw error
        }
        // Assigned only now: once they are set, deinit owns closing them.
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(readDescriptor, &bytes, MemoryLayout.size(ofValue: bytes)) > 0 {}
    }
}
