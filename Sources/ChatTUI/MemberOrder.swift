/// How members are listed, the member pane and `/who` of both modes alike (issue 24, habits:
/// operators first, as weechat lists them): operators, then those logged in to an account, then
/// the rest, each in name order (case ignored), with their marks: `@` an operator, `+` logged
/// in, then `~` when away. `operators` and `identified` hold lower-cased nicks.
public enum MemberOrder {
    public static func sorted(_ members: [String], operators: Set<String>, identified: Set<String>) -> [String] {
        members.map { (rank: rank($0, operators, identified), key: $0.lowercased(), nick: $0) }
            .sorted { ($0.rank, $0.key) < ($1.rank, $1.key) }.map(\.nick)
    }

    /// `@`, `+` or nothing, then `~` when away.
    public static func marks(_ nick: String, operators: Set<String>, identified: Set<String>, away: Bool) -> String {
        ["@", "+", ""][rank(nick, operators, identified)] + (away ? "~" : "")
    }

    static func rank(_ nick: String, _ operators: Set<String>, _ identified: Set<String>) -> Int {
        let key = nick.lowercased()
        return operators.contains(key) ? 0 : identified.contains(key) ? 1 : 2
    }
}
