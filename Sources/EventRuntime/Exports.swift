// The runtime's values (MonotonicTime, SocketAddress, DeadlineHeap, RandomBytes) come with it.
@_exported import RuntimeCore
