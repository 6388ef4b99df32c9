/// The rooms one connection is in, in the order it joined them (so `left` events and logs come
/// out in a stable order), with O(1) membership tests: departure, typing and every message check
/// membership, and a client may be in many rooms.
struct JoinedRooms: Sequence {
    private var ordered: [String] = []
    private var members: Set<String> = []

    var count: Int { ordered.count }
    var isEmpty: Bool { ordered.isEmpty }

    func contains(_ room: String) -> Bool { members.contains(room) }

    /// Adds `room` at the end; false if it was there already.
    @discardableResult
    mutating func insert(_ room: String) -> Bool {
        guard members.insert(room).inserted else { return false }
        ordered.append(room)
        return true
    }

    /// O(rooms joined), which the room limit keeps small.
    mutating func remove(_ room: String) {
        guard members.remove(room) != nil else { return }
        ordered.removeAll { $0 == room }
    }

    mutating func removeAll() {
        ordered = []
        members = []
    }

    func makeIterator() -> IndexingIterator<[String]> { ordered.makeIterator() }

    var array: [String] { ordered }
}
