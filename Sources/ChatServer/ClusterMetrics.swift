import Prometheus

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
    /// Times Redis was found to have lost its data (the epoch changed).
    var epochChanges = 0
}
