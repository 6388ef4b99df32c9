import ChatProtocol
import Prometheus

/// Messages counted by `type`. The types of version 1, which every delivery is one of, have a
/// plain integer each: counting one is a jump and an addition, no hashing, no allocation. The
/// rarer types of accounts and moderation share a dictionary.
struct MessageTypeCounts {
    private var join = 0, msg = 0, dm = 0, nick = 0, part = 0, history = 0
    private var welcome = 0, ack = 0, joined = 0, left = 0, historyEnd = 0, error = 0
    private var roster = 0, status = 0, typing = 0, presence = 0
    private var rarer: [MessageType: Int] = [:]
    /// No `type` this build knows.
    private var other = 0

    @inline(__always)
    mutating func add(_ type: MessageType?) {
        switch type {
        case .join?: join &+= 1
        case .msg?: msg &+= 1
        case .dm?: dm &+= 1
        case .nick?: nick &+= 1
        case .part?: part &+= 1
        case .history?: history &+= 1
        case .welcome?: welcome &+= 1
        case .ack?: ack &+= 1
        case .joined?: joined &+= 1
        case .left?: left &+= 1
        case .historyEnd?: historyEnd &+= 1
        case .error?: error &+= 1
        case .roster?: roster &+= 1
        case .status?: status &+= 1
        case .typing?: typing &+= 1
        case .presence?: presence &+= 1
        case let type?: rarer[type, default: 0] &+= 1
        case nil: other &+= 1
        }
    }

    subscript(type: MessageType?) -> Int {
        switch type {
        case .join?: join
        case .msg?: msg
        case .dm?: dm
        case .nick?: nick
        case .part?: part
        case .history?: history
        case .welcome?: welcome
        case .ack?: ack
        case .joined?: joined
        case .left?: left
        case .historyEnd?: historyEnd
        case .error?: error
        case .roster?: roster
        case .status?: status
        case .typing?: typing
        case .presence?: presence
        case let type?: rarer[type] ?? 0
        case nil: other
        }
    }

    /// One sample per type in `types`, then any other type counted, then `other`, for a metrics
    /// family labelled `type`.
    func samples(_ types: [MessageType]) -> [MetricSample] {
        let unlisted = rarer.keys.filter { !types.contains($0) }.sorted { $0.rawValue < $1.rawValue }
        return (types + unlisted).map { MetricSample(["type": $0.rawValue], self[$0]) } + [MetricSample(["type": "other"], other)]
    }
}
