/// What Tab may complete to, supplied by the caller at each press: nicks of the current room
/// (in the order the caller prefers, e.g. most recently active first) and command names with
/// their leading slash.
public struct CompletionCandidates: Sendable, Equatable {
    public var nicks: [String]
    public var commands: [String]

    public init(nicks: [String] = [], commands: [String] = []) {
        self.nicks = nicks
        self.commands = commands
    }
}
