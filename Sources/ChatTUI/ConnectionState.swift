/// The connection as the status bar shows it.
public enum ConnectionState: Sendable, Equatable {
    case connecting
    case connected
    /// Trying again after a loss; `attempt` counts from 1.
    case reconnecting(attempt: Int)
    /// Given up, or closed by the server; `reason` is shown (neutralised).
    case disconnected(reason: String)
    /// Not connected because the client waits for the person (a nick to choose): `what` alone is shown.
    case waiting(String)
}
