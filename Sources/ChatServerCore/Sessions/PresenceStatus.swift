/// The status words of the presence stream (PROTOCOL.md section 3).
public enum PresenceStatus: String, CaseIterable, Sendable {
    case online
    case away
    case offline
}
