/// The glue's id for one QUIC connection. The glue never reuses an id, so an id the core has
/// forgotten (closed, replaced) can safely be ignored when events for it still arrive.
public typealias ClientID = UInt64
