// The engine's API speaks in the runtime's values (MonotonicTime, SocketAddress): whoever imports
// the engine can name them.
@_exported import RuntimeCore
