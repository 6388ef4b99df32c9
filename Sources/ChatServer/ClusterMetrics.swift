import Prometheus
import QuicEngine

/// A node's figures about the shared store, counted by its ``ClusterLink`` on the loop thread
/// and shown as the `qchat_cluster_*` families (only on a node of several).
final class ClusterMetrics {
    /// Room-event appends by outcome: stored, duplicate (a resend, or a member moved here), failed.
    var appends: [String: Int] = ["stored": 0, "duplicate": 0, "failed": 0]
    /// From the append sent to its answer.
    var appendLatency = PrometheusHistogram()
    /// Room events the rooms' feeds delivered here, and events lost to trimming while cut off.
    var eventsDelivered = 0
    var eventsLostToTrimming = 0
    /// Nodes this one found lost and reaped.
    var nodesReaped = 0
    /// The last renewal of this node's place that Redis confirmed (the start until the first),
    /// and renewals that failed.
    var lastRenewal = QuicTime.now()
    var renewFailures = 0
    /// Other nodes in the directory at the last scan.
    var peerNodes = 0
    /// From a room event's `ts` (its node's clock when it was made, just before its append) to its
    /// delivery here: what Redis, the subscription and gap fills add (and the nodes' clock skew).
    var eventDelay = PrometheusHistogram()
    /// Times Redis was found to have lost its data (the epoch changed, or an append's check).
    var epochChanges = 0
    /// Appends refused because Redis no longer had what this node had seen of the room.
    var storeLossesFound = 0
    /// The eviction policy of a Redis this node stores in, when it is not `noeviction` (nil:
    /// every one is, or not known).
    var unsafeEvictionPolicy: String?
}
