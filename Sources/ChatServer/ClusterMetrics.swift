import Prometheus
import QuicEngine

/// A node's figures about the shared store, counted by its ``ClusterLink`` on the loop thread
/// and shown as the `qchat_cluster_*` families (only on a node of several); those of the node's
/// life in the cluster (reaps, renewals, epoch, eviction) are its ``ClusterNode/Figures``.
final class ClusterMetrics {
    /// Room-event appends by outcome: stored, duplicate (a resend, or a member moved here), failed.
    var appends: [String: Int] = ["stored": 0, "duplicate": 0, "failed": 0]
    /// From the append sent to its answer.
    var appendLatency = PrometheusHistogram()
    /// Room events the rooms' feeds delivered here, and events lost to trimming while cut off.
    var eventsDelivered = 0
    var eventsLostToTrimming = 0
    /// From a room event's `ts` (its node's clock when it was made, just before its append) to its
    /// delivery here: what Redis, the subscription and gap fills add (and the nodes' clock skew).
    var eventDelay = PrometheusHistogram()
}
