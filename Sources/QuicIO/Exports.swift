// The QUIC engine on the event loop: whoever drives the engine gets both.
@_exported import EventRuntime
@_exported import QuicEngine
