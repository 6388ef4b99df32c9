import RuntimeCore

/// QUIC stream identifiers as RFC 9000 numbers them (client bidirectional streams are 0, 4, 8, ...).
public typealias QuicStreamID = Int64

/// What a connection tells the application, in order, through `QuicEndpoint.pollEvent()`.
public enum QuicEvent {
    /// Server side: a new connection began its handshake.
    case accepted
    /// TLS finished; ALPN and the peer certificate are now known.
    case handshakeCompleted
    /// The peer opened a stream.
    case streamOpened(QuicStreamID)
    /// Bytes in order; `fin` marks the end of the peer's side of the stream.
    case streamData(QuicStreamID, [UInt8], fin: Bool)
    /// The peer abandoned its side of the stream (RESET_STREAM). A peer's STOP_SENDING shows up
    /// differently: ngtcp2 0.12 reports no event for it but answers with RESET_STREAM carrying
    /// the same code, and our later writes to that stream throw `streamNotWritable`.
    case streamReset(QuicStreamID, errorCode: UInt64)
    /// The send buffer of the stream drained below half after a write was refused or cut short.
    case streamWritable(QuicStreamID)
    /// Both sides of the stream are finished and its state is gone.
    case streamClosed(QuicStreamID)
    case datagram([UInt8])
    /// The connection now uses a new validated path (migration or NAT rebinding).
    case pathChanged(local: SocketAddress, remote: SocketAddress)
    /// The connection can no longer be used. Always the last event of a connection.
    case closed(QuicCloseReason)
}
