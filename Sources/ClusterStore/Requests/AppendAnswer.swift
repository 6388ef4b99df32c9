import ChatServerCore

/// What the answer to a room event's append (``RoomEventLog/append``) is for the core, and how
/// the node counts it.
public struct AppendAnswer: Equatable, Sendable {
    public let outcome: RoomAppendOutcome
    /// Its label in the node's appends figure: stored, duplicate, refused (a setting taken), lost
    /// (the store lost data this node had seen) or failed.
    public let figure: String
    /// Redis lost data this node had seen: the node recovers (``ClusterNode/storeLost(room:)``).
    public let storeLost: Bool

    public init(_ result: Result<RoomAppend, RoomStoreError>) {
        switch result {
        case .success(let stored) where stored.storeLost:
            self.init(.refused("redis lost data this node had seen"), figure: "lost", storeLost: true)
        case .success(let stored) where stored.existing != nil:
            self.init(.settingTaken(stored.existing!), figure: "refused")
        case .success(let stored):
            self.init(.stored(seq: stored.seq, duplicate: stored.duplicate), figure: stored.duplicate ? "duplicate" : "stored")
        case .failure(let error):
            self.init(error.isKnownNotStored ? .refused("\(error)") : .failed("\(error)"), figure: "failed")
        }
    }

    init(_ outcome: RoomAppendOutcome, figure: String, storeLost: Bool = false) {
        self.outcome = outcome
        self.figure = figure
        self.storeLost = storeLost
    }
}
