import Testing
import TestSupport

extension Trait where Self == ConditionTrait {
    /// Skips the test when the suite runs against several nodes (``ClusterMode``): what it checks
    /// is a property of one process (`reason` says which), not of the protocol. Each use is listed
    /// in docs/CLUSTER.md ("The suite against several nodes").
    static func standaloneOnly(_ reason: Comment) -> Self { .disabled(if: ClusterMode.isOn, reason) }
}
