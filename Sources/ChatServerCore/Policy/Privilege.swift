/// How much a user may do in one room (PROTOCOL.md section 8), lowest first. A moderation request
/// needs at least `roomOperator` (`op`/`deop` at least `owner`), and its target may not rank above
/// the one who asks: an operator cannot kick the owner, nobody but a server operator a server
/// operator.
enum Privilege: Int, Comparable {
    case guest
    /// Logged in to an account.
    case member
    case roomOperator
    case owner
    case serverOperator

    static func < (lhs: Privilege, rhs: Privilege) -> Bool { lhs.rawValue < rhs.rawValue }
}
