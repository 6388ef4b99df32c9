import ChatProtocol

/// weechat's smart filter for joins, parts and nick changes: with it on, the comings and goings
/// of someone who has not spoken in a room for ``window`` are not shown there (nor their going
/// online or offline, unless they spoke in some room within it); those of people in
/// the conversation are (issue 24, habits). Time is passed in (Unix milliseconds). At most
/// ``limit`` speakers are remembered; the oldest are forgotten first.
public struct SmartFilter: Sendable {
    public static let window: Int64 = 10 * 60_000
    public static let limit = 10_000
    public var isOn: Bool
    /// When each nick (key) last spoke in each room.
    private var lastSpoke: [String: [String: Int64]] = [:]
    private var count = 0

    public init(isOn: Bool) { self.isOn = isOn }

    /// What `/filter` says.
    public static func stateText(_ isOn: Bool) -> String {
        isOn ? "the smart filter is on: joins and parts of people quiet for 10 minutes are hidden (/filter off shows them)"
            : "the smart filter is off: every join and part is shown (/filter on hides those of people quiet for 10 minutes)"
    }

    /// Follows who speaks; true for a join, part or nick change to hide now.
    public mutating func hides(_ message: ChatMessage, ownNick: String, now: Int64) -> Bool {
        let key = ChatValidation.nickKey(message.sender)
        if message.messageType == .status, isOn, message.text == "online" || message.text == "offline", key != ChatValidation.nickKey(ownNick) {
            // Coming online and going offline (line mode prints them) are comings and goings too.
            let time = message.ts ?? now
            return !lastSpoke.values.contains { $0[key].map { time - $0 <= Self.window } ?? false }
        }
        guard let room = message.room else { return false }
        switch message.messageType {
        case .msg, .file:
            remember(key, in: room, at: message.ts ?? now)
            return false
        case .joined, .left, .nick:
            guard isOn, key != ChatValidation.nickKey(ownNick) else { return false }
            let spoke = lastSpoke[room]?[key]
            if message.messageType == .nick, let spoke {
                // The conversation goes on under the new nick.
                lastSpoke[room]?[ChatValidation.nickKey(message.text)] = spoke
            }
            return spoke.map { (message.ts ?? now) - $0 > Self.window } ?? true
        default:
            return false
        }
    }

    private mutating func remember(_ key: String, in room: String, at time: Int64) {
        if lastSpoke[room]?[key] == nil { count += 1 }
        lastSpoke[room, default: [:]][key] = time
        guard count > Self.limit else { return }
        // Forget everyone quiet for longer than the window: they would be hidden anyway.
        for (room, speakers) in lastSpoke {
            lastSpoke[room] = speakers.filter { time - $0.value <= Self.window }
        }
        count = lastSpoke.values.reduce(0) { $0 + $1.count }
    }
}
