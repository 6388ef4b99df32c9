/// A room's topic, who set it and when.
public struct RoomTopic: Sendable, Equatable, Hashable {
    public var text: String
    public var setBy: String
    public var ts: Int64

    public init(text: String, setBy: String, ts: Int64) {
        self.text = text
        self.setBy = setBy
        self.ts = ts
    }
}
