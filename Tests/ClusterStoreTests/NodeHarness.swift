import ChatServerCore
@testable import ClusterStore
import EventRuntime
import RedisClient
import Testing

/// A ``ClusterNode`` and everything it asked for: the commands not answered yet (in the order
/// sent), the timers set, its reports, log lines and renewal switches. The tests answer its
/// commands by hand (a scripted Redis) or through ``InMemoryRedis``, and fire its timers.
final class NodeHarness {
    var node: ClusterNode
    var unanswered: [ClusterNode.Command] = []
    var timers: [ClusterNode.Timer] = []
    var reports: [ClusterNode.Report] = []
    var logs: [String] = []
    var renewing: [Bool] = []
    var leftCount = 0
    var now = MonotonicTime(nanoseconds: 1_000_000_000_000)
    /// What the node follows, for a recovery from a lost store.
    var followed: [(room: String, delivered: Int64)] = []

    init(node name: String = "n1", instance: String? = nil, sharded: Bool = false, mark: String = "mark-1") {
        let epochs = EpochCandidates(prefix: "epoch-\(name)")
        let directory = NodeDirectoryCommands(node: name, instance: instance ?? "token-\(name)", lifetime: .seconds(6),
                                              reapTimeout: .seconds(30), interval: .seconds(2))
        let configuration = ClusterNode.Configuration(directory: directory, heartbeatInterval: .seconds(2), nodeTimeout: .seconds(6),
                                                      sharded: sharded, filesFolderMark: mark, epochCandidate: { epochs.next() })
        node = ClusterNode(configuration, now: now)
    }

    func take(_ actions: [ClusterNode.Action]) {
        for action in actions {
            switch action {
            case .send(let command): unanswered.append(command)
            case .schedule(let timer, _): timers.append(timer)
            case .report(let report): reports.append(report)
            case .log(_, let event, _): logs.append(event)
            case .renewing(let on): renewing.append(on)
            case .left: leftCount += 1
            }
        }
    }

    /// What the commands not answered yet are, in order (``label(_:)``).
    var labels: [String] { unanswered.map { Self.label($0.command) } }

    /// Answers the oldest command not answered yet that has `label`.
    func answer(_ label: String, _ result: Result<RedisReply, RoomStoreError>, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let index = unanswered.firstIndex(where: { Self.label($0.command) == label }) else {
            Issue.record("no \(label) waiting; waiting: \(labels)", sourceLocation: sourceLocation)
            return
        }
        let command = unanswered.remove(at: index)
        take(node.answered(command.id, result, now: now, followed: { followed }))
    }

    func answer(_ label: String, _ reply: RedisReply, sourceLocation: SourceLocation = #_sourceLocation) {
        answer(label, .success(reply), sourceLocation: sourceLocation)
    }

    /// Answers a command sent to every data server with each server's reply.
    func answerEach(_ label: String, _ replies: [(server: String, result: Result<RedisReply, RoomStoreError>)],
                    sourceLocation: SourceLocation = #_sourceLocation) {
        guard let index = unanswered.firstIndex(where: { Self.label($0.command) == label }) else {
            Issue.record("no \(label) waiting; waiting: \(labels)", sourceLocation: sourceLocation)
            return
        }
        let command = unanswered.remove(at: index)
        #expect(command.route == .eachDataServer, sourceLocation: sourceLocation)
        take(node.answered(command.id, each: replies, now: now))
    }

    /// One Redis that keeps its keys.
    func answerEviction(_ policy: String = "noeviction", sourceLocation: SourceLocation = #_sourceLocation) {
        answerEach("INFO memory", [("redis:1", .success(.bulk(Array("# Memory\r\nmaxmemory_policy:\(policy)\r\n".utf8))))],
                   sourceLocation: sourceLocation)
    }

    /// Fires one timer of that kind that is set (time moves on by the interval).
    func fire(_ timer: ClusterNode.Timer, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let index = timers.firstIndex(of: timer) else {
            Issue.record("no \(timer) timer set; set: \(timers)", sourceLocation: sourceLocation)
            return
        }
        timers.remove(at: index)
        now = now + .seconds(2)
        take(node.fired(timer, now: now))
    }

    /// A command as the tests name it: `EVAL <script> [first key]` for the node's scripts
    /// (`join`/`renew` for the directory's heartbeat), `NAME first-argument` otherwise.
    static func label(_ command: RedisCommand) -> String {
        let arguments = command.arguments.map { String(decoding: $0, as: UTF8.self) }
        guard arguments.first == "EVAL", arguments.count >= 3 else { return arguments.prefix(2).joined(separator: " ") }
        switch arguments[1] {
        case NodeDirectory.heartbeatScript: return "EVAL \(arguments[9])"
        case NodeDirectory.claimScript: return "EVAL claim"
        case NodeDirectory.leaveScript: return "EVAL leave"
        case FileStoreScripts.buildPartiesScript: return "EVAL buildParties"
        case FileStoreScripts.claimFolderScript: return "EVAL claimFolder"
        case Leases.releaseAllScript: return "EVAL releaseAll"
        case RoomEventLog.stateScript: return "EVAL roomState \(arguments[3])"
        case ClusterNode.raiseSeqScript: return "EVAL raiseSeq \(arguments[3]) \(arguments[4])"
        case AccountsLoad.readAccountsScript: return "EVAL readAccounts \(arguments[3])"
        case AccountWriteRequest.createAccountScript: return "EVAL createAccount \(arguments[3])"
        case AccountWriteRequest.retireAccountScript: return "EVAL retireAccount \(arguments[3])"
        case LoginAttemptReserve.reserveAttemptScript: return "EVAL reserveAttempt \(arguments[3])"
        case LoginAttemptReserve.releaseAttemptScript: return "EVAL releaseAttempt \(arguments[3])"
        case Leases.takeScript: return "EVAL take \(arguments[3])"
        case Leases.releaseScript: return "EVAL release \(arguments[3])"
        case Leases.takeOverDeviceScript: return "EVAL takeOverDevice \(arguments[3])"
        case Leases.claimHelloScript: return "EVAL claimHello \(arguments[3])"
        case FileStoreScripts.loadFilesScript: return "EVAL loadFiles"
        case FileStoreScripts.storeFileScript: return "EVAL storeFile"
        case FileStoreScripts.writePartialScript: return "EVAL writePartial \(arguments[3 + FileStoreScripts.keys.count])"
        case MemberStatusPublication.updateRecordScript: return "EVAL updateRecord \(arguments[3])"
        default: return "EVAL ?"
        }
    }

    /// Starts the node and takes it through a join on an empty store, answering as Redis would.
    func joinOnEmptyStore(sourceLocation: SourceLocation = #_sourceLocation) {
        take(node.start())
        take(node.connected(server: "redis:1"))
        answer("SET {meta}:epoch", .null, sourceLocation: sourceLocation)
        answerEviction(sourceLocation: sourceLocation)
        answer("EVAL join", .integer(10_000), sourceLocation: sourceLocation)
        answer("SMEMBERS {node:\(node.node)}:rooms", .array([]), sourceLocation: sourceLocation)
        answer("SMEMBERS {node:\(node.node)}:holds", .array([]), sourceLocation: sourceLocation)
        answer("DEL {node:\(node.node)}:holds", .integer(0), sourceLocation: sourceLocation)
        answer("DEL {node:\(node.node)}:rooms", .integer(0), sourceLocation: sourceLocation)
        answer("HGETALL {server}:bans", .array([]), sourceLocation: sourceLocation)
        answer("EVAL buildParties", .integer(1), sourceLocation: sourceLocation)
        answer("EVAL claimFolder", .bulk(Array(node.configuration.filesFolderMark.utf8)), sourceLocation: sourceLocation)
        #expect(node.isReady, sourceLocation: sourceLocation)
    }
}

/// `PREFIX-1`, `PREFIX-2`, ...: epoch candidates the tests can name.
final class EpochCandidates: Sendable {
    private let prefix: String
    private let count = LockedValue(0)

    init(prefix: String) { self.prefix = prefix }

    func next() -> String {
        let number = count.withLock { value in
            value += 1
            return value
        }
        return "\(prefix)-\(number)"
    }
}

extension RedisReply {
    static func text(_ value: String) -> RedisReply { .bulk(Array(value.utf8)) }
    static func texts(_ values: [String]) -> RedisReply { .array(values.map(text)) }
}
