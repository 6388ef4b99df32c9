import EventRuntime

/// What the impairments decided for one arriving packet: zero, one or two copies (duplication),
/// each with its release time and whether to corrupt it. Two inline slots, not an array, so
/// planning allocates nothing.
struct PacketPlan {
    struct Copy: Equatable {
        var releaseAt: MonotonicTime
        var corrupt: Bool
    }

    private(set) var count = 0
    private var first = Copy(releaseAt: MonotonicTime(nanoseconds: 0), corrupt: false)
    private var second = Copy(releaseAt: MonotonicTime(nanoseconds: 0), corrupt: false)

    mutating func append(_ copy: Copy) {
        precondition(count < 2, "a packet has at most two copies")
        if count == 0 { first = copy } else { second = copy }
        count += 1
    }

    subscript(index: Int) -> Copy {
        precondition(index < count)
        return index == 0 ? first : second
    }

    var copies: [Copy] { (0..<count).map { self[$0] } }
}
