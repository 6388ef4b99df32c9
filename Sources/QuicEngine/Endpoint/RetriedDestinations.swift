/// The Destination Connection IDs of the latest tokenless Initials a server answered with a Retry
/// (at most ``capacity``, the oldest forgotten first). A client retransmits its first Initial
/// until it hears from the server: a copy that arrives after the Retry, once the server has
/// stopped retrying (its handshakes in progress fell), would be accepted as a connection without
/// Retry while the client, which took the Retry, goes on with its token on another one; the
/// server's transport parameters then lack the `retry_source_connection_id` the client expects,
/// and the client fails the handshake (TRANSPORT_PARAMETER_ERROR: seen once in 1,000 resumed
/// handshakes of the storm test under ThreadSanitizer). A DCID answered with a Retry is answered
/// with a Retry again, whatever the load; the client ignores a second Retry (RFC 9000, 17.2.5.2).
struct RetriedDestinations {
    static let capacity = 4096

    private var members: Set<ConnectionID> = []
    private var ring: [ConnectionID] = []
    private var next = 0

    func contains(_ id: ConnectionID) -> Bool { members.contains(id) }

    mutating func insert(_ id: ConnectionID) {
        guard members.insert(id).inserted else { return }
        if ring.count < Self.capacity {
            ring.append(id)
            return
        }
        members.remove(ring[next])
        ring[next] = id
        next = (next + 1) % Self.capacity
    }

    var count: Int { members.count }
}
