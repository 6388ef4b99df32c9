import ClusterStore
import RedisClient

/// What the glue tells ``ClusterNode`` that only the client knows, and the stop it asks of it.
extension ClusterLink {
    /// A planned stop (SIGTERM): the directory is told the node is stopping (``ClusterNode/leave()``);
    /// `done` once it answered (or could not be reached).
    func leave(_ done: @escaping () -> Void) { node.leave(done) }

    /// Whether losing the connection to `server` may mean losing the epoch's store (and the data
    /// it vouches for): the one Redis, or on a Redis Cluster the master serving the epoch's slot.
    /// Another shard's master, or a dead seed that serves nothing any more, does not hold back
    /// appends.
    func holdsEpoch(_ server: RedisServerAddress) -> Bool {
        guard client.isCluster, let map = client.currentSlotMap else { return true }
        return map.owner(of: RedisKeySlot.slot(of: ClusterKeys.epoch)) == server
    }
}
