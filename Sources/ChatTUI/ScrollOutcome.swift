/// What a scroll-up request did.
public enum ScrollOutcome: Sendable, Equatable {
    case scrolled
    /// The pane already shows (or now shows) the oldest line and the user asked for more:
    /// time to send a `history` request for older events of this room.
    case reachedOldest
}
