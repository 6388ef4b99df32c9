/// The status words of the presence stream (PROTOCOL.md section 3).
enum PresenceStatus: String, CaseIterable {
    case online
    case away
    case offline
}
