import Foundation

/// The end-to-end suites against several chat-server nodes on one Redis (docs/CLUSTER.md,
/// "The suite against several nodes"): with `QCHAT_TEST_NODES=3` in the environment, every
/// ``ChatServerProcess`` a test starts with ``ChatServerProcess/init(_:)`` is three nodes on a
/// redis-server of its own, and the test's clients are spread over them in turn.
public enum ClusterMode {
    public static let variable = "QCHAT_TEST_NODES"

    /// The nodes a test's server is made of: 1 (one process, no Redis) unless `QCHAT_TEST_NODES`
    /// asks for 2 to 9. Any other value stops the run: a typo must not run the suite standalone
    /// while it looks like a cluster run.
    public static let nodes: Int = {
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return 1 }
        guard let count = Int(text), (1...9).contains(count) else {
            fatalError("\(variable) must be a number of nodes from 1 to 9, not '\(text)'")
        }
        return count
    }()

    /// True when tests run against several nodes.
    public static var isOn: Bool { nodes > 1 }

    /// The `features` a `welcome` lists: the standalone server's, then `cluster` on a cluster
    /// (PROTOCOL.md section 10).
    public static func welcomeFeatures(_ standalone: [String]) -> [String] { isOn ? standalone + ["cluster"] : standalone }

    /// Whether `text` is the `welcome` text of the server named `name`: the name, or on a cluster
    /// `name/NODE` (PROTOCOL.md section 10: the text names the node).
    public static func isWelcomeText(_ text: String?, of name: String) -> Bool {
        guard let text else { return false }
        return isOn ? text.hasPrefix(name + "/") && text.count > name.count + 1 : text == name
    }
}
