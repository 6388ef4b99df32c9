/// A stream framing violation. It is fatal: the stream decoder yields nothing afterwards and
/// the connection is closed with ``CloseCode/protocolError``.
public enum ChatFramingError: Error, Sendable, Equatable, Hashable {
    /// A message longer than ``ChatLimits/maxStreamMessageBytes`` including its LF.
    case tooLarge
    /// Bytes on the stream that are not UTF-8.
    case invalidUTF8

    /// How the connection must be closed.
    public var closeCode: CloseCode { .protocolError }
}
