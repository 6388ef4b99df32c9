/// Presence of a user as the `status` messages report it. `offline` users are not members.
public enum MemberStatus: Sendable, Equatable {
    case online
    case away
}
