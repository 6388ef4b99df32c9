/// What Tab may complete to, supplied by the caller at each press: nicks of the current room
/// (in the order the caller prefers, e.g. most recently active first), command names with
/// their leading slash, room names (without `#`), and, when the word is a path, its
/// completions as the caller found them on disk.
public struct CompletionCandidates: Sendable, Equatable {
    public var nicks: [String]
    public var commands: [String]
    public var rooms: [String]
    /// The word is a room (`/join`, `/part`, `/buffer`): rooms rather than nicks, `#` or not.
    public var wantsRoom: Bool
    /// The word is a path: these replace it whole (escaped as typed, a directory ending in `/`).
    public var paths: [String]?

    public init(nicks: [String] = [], commands: [String] = [], rooms: [String] = [], wantsRoom: Bool = false, paths: [String]? = nil) {
        self.nicks = nicks
        self.commands = commands
        self.rooms = rooms
        self.wantsRoom = wantsRoom
        self.paths = paths
    }
}
