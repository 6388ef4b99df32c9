/// One room, or a private conversation (a query, named `@` + the other nick, which no room
/// name can be), with what the renderer shows of it.
public struct ChatRoom: Sendable, Equatable {
    public static let queryPrefix = "@"

    public let name: String
    public internal(set) var lines: [ChatLine] = []
    /// Messages received while another room was shown.
    public internal(set) var unreadCount = 0
    /// Of those, the ones that mention us (and private messages).
    public internal(set) var highlightCount = 0
    /// Nicks in the room, as the roster and joined/left events give them.
    public internal(set) var members: [String] = []
    /// The room's topic, shown above its messages.
    public internal(set) var topic: String?
    /// Lower-cased nicks of the operators present, and of the members logged in: marked `@` and
    /// `+` in the member list.
    public internal(set) var operators: Set<String> = []
    public internal(set) var identified: Set<String> = []
    /// `invite`, `registered`.
    public internal(set) var modes: [String] = []
    public internal(set) var typists: [Typist] = []
    /// nil while the pane follows the newest line.
    public internal(set) var scrollAnchor: ScrollAnchor?
    /// Set by the caller once a `history` request brought nothing older, so that scrolling to the
    /// top stops asking.
    public var isHistoryExhausted = false
    /// The person left this room for another: the next unread line gets the read marker above it.
    public internal(set) var isAwaitingReadMarker = false
    /// The line a search found, and the word searched.
    public internal(set) var searchMatch: (lineIndex: Int, term: String)?

    public init(name: String) {
        self.name = name
    }

    /// A private conversation rather than a room.
    public var isQuery: Bool { name.hasPrefix(Self.queryPrefix) }

    /// A view of lines gathered from elsewhere (`/lastlog`), named `=` and what it shows, which
    /// no room or conversation can be: nothing is sent from it.
    public static let viewPrefix = "="
    public var isView: Bool { name.hasPrefix(Self.viewPrefix) }

    /// The other side's nick of a private conversation.
    public var queryNick: String? { isQuery ? String(name.dropFirst(Self.queryPrefix.count)) : nil }

    /// True while the user reads older lines and new ones arrive unseen below.
    public var isScrolledBack: Bool { scrollAnchor != nil }

    /// Lines below the bottom of a scrolled-back pane, the read marker not counted (0 when following).
    public var linesBelow: Int {
        guard let anchor = scrollAnchor, anchor.lineIndex + 1 < lines.count else { return 0 }
        return lines[(max(0, anchor.lineIndex) + 1)...].filter { !$0.isRule }.count
    }

    func memberIndex(of nick: String) -> Int? {
        let key = nick.lowercased()
        return members.firstIndex { $0.lowercased() == key }
    }

    public static func == (lhs: ChatRoom, rhs: ChatRoom) -> Bool {
        lhs.name == rhs.name && lhs.lines == rhs.lines && lhs.unreadCount == rhs.unreadCount
            && lhs.highlightCount == rhs.highlightCount && lhs.members == rhs.members && lhs.typists == rhs.typists
            && lhs.topic == rhs.topic && lhs.operators == rhs.operators && lhs.identified == rhs.identified && lhs.modes == rhs.modes
            && lhs.scrollAnchor == rhs.scrollAnchor && lhs.isHistoryExhausted == rhs.isHistoryExhausted
            && lhs.isAwaitingReadMarker == rhs.isAwaitingReadMarker && lhs.searchMatch?.lineIndex == rhs.searchMatch?.lineIndex
            && lhs.searchMatch?.term == rhs.searchMatch?.term
    }
}
