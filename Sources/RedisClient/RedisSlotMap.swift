/// Which master serves each of Redis Cluster's 16384 slots, from a CLUSTER SLOTS reply.
public struct RedisSlotMap: Hashable, Sendable {
    /// The masters, in the order CLUSTER SLOTS named them first.
    public private(set) var masters: [RedisServerAddress] = []
    /// Index into `masters` per slot; -1 where no master serves the slot.
    private var owners = [Int16](repeating: -1, count: RedisKeySlot.count)

    public init() {}

    /// Parses CLUSTER SLOTS: an array of [start, end, [ip, port, id, ...], replicas...]. An empty
    /// ip means "the address you reached me at" (`fallbackHost`).
    public init?(clusterSlots reply: RedisReply, fallbackHost: String) {
        guard let ranges = reply.elements else { return nil }
        for range in ranges {
            guard let fields = range.elements, fields.count >= 3,
                  let start = fields[0].integer, let end = fields[1].integer,
                  start >= 0, end < RedisKeySlot.count, start <= end,
                  let master = fields[2].elements, master.count >= 2,
                  let host = master[0].text, let port = master[1].integer, let port16 = UInt16(exactly: port) else { return nil }
            let address = RedisServerAddress(host: host.isEmpty || host == "?" ? fallbackHost : host, port: port16)
            assign(Int(start)...Int(end), to: address)
        }
    }

    public mutating func assign(_ slots: ClosedRange<Int>, to address: RedisServerAddress) {
        let index: Int
        if let known = masters.firstIndex(of: address) {
            index = known
        } else {
            masters.append(address)
            index = masters.count - 1
        }
        for slot in slots { owners[slot] = Int16(index) }
    }

    public func owner(of slot: Int) -> RedisServerAddress? {
        let index = owners[slot]
        return index < 0 ? nil : masters[Int(index)]
    }

    /// True when every slot has a master.
    public var isComplete: Bool { !owners.contains(-1) }

    /// The masters that serve at least one slot.
    public var servingMasters: [RedisServerAddress] {
        let used = Set(owners.filter { $0 >= 0 })
        return masters.enumerated().filter { used.contains(Int16($0.offset)) }.map(\.element)
    }
}
