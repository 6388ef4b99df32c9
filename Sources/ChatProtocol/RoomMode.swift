/// The modes a room can have (PROTOCOL.md section 8), as `roster` lists them in `modes`.
public enum RoomMode: String, Sendable, CaseIterable, Comparable {
    /// Only the invited (and the room's operators) may join.
    case invite
    /// Guests may neither join nor speak.
    case registered

    public static func < (lhs: RoomMode, rhs: RoomMode) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One `mode` change as a request carries it: `+invite`, `-invite`, `+registered`, `-registered`.
public struct RoomModeChange: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var mode: RoomMode
    public var isOn: Bool

    public init(_ mode: RoomMode, on isOn: Bool) {
        self.mode = mode
        self.isOn = isOn
    }

    /// Parses `+invite` and friends; nil for anything else.
    public init?(_ text: String) {
        guard let sign = text.first, sign == "+" || sign == "-", let mode = RoomMode(rawValue: String(text.dropFirst())) else {
            return nil
        }
        self.init(mode, on: sign == "+")
    }

    /// The wire form, `+invite`.
    public var description: String { (isOn ? "+" : "-") + mode.rawValue }
}
