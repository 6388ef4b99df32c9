// The runtime's values (MonotonicTime, SocketAddress, DeadlineHeap, RandomBytes, LockedValue) come with it.
@_exported import RuntimeCore
