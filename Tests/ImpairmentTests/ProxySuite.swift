import Testing

/// The socket-level tests. Serialized because several measure time (delay, bandwidth,
/// blackholes) and the machine has two shared cores: parallel runs would only add noise.
@Suite(.serialized) enum ProxySuite {}
