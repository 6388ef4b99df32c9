import ChatProtocol
import Prometheus

/// Messages counted by `type`, one plain integer per type: counting one is a jump and an
/// addition, with no hashing and no allocation, since it happens for every delivery.
struct MessageTypeCounts {
    private var join = 0, msg = 0, dm = 0, nick = 0, part = 0, history = 0
    private var welcome = 0, ack = 0, joined = 0, left = 0, historyEnd = 0, error = 0
    private var roster = 0, status = 0, typing = 0, presence = 0
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
        default: other &+= 1
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
        default: other
        }
    }

    /// One sample per type in `types`, then `other`, for a metrics family labelled `type`.
    func samples(_ types: [MessageType]) -> [MetricSample] {
        types.map { MetricSample(["type": $0.rawValue], self[$0]) } + [MetricSample(["type": "other"], other)]
    }
}
