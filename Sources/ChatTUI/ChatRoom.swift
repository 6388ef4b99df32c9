/// One room (or private conversation) with what the renderer shows of it.
public struct ChatRoom: Sendable, Equatable {
    public let name: String
    public internal(set) var lines: [ChatLine] = []
    /// Messages received while another room was shown.
    public internal(set) var unreadCount = 0
    /// Nicks in the room, as the roster and joined/left events give them.
    public internal(set) var members: [String] = []
    public internal(set) var typists: [Typist] = []
    /// nil while the pane follows the newest line.
    public internal(set) var scrollAnchor: ScrollAnchor?
    /// Set by the caller once a `history` request brought nothing older, so that scrolling to the
    /// top stops asking.
    public var isHistoryExhausted = false

    public init(name: String) {
        self.name = name
    }

    /// True while the user reads older lines and new ones arrive unseen below.
    public var isScrolledBack: Bool { scrollAnchor != nil }

    func memberIndex(of nick: String) -> Int? {
        let key = nick.lowercased()
        return members.firstIndex { $0.lowercased() == key }
    }
}
