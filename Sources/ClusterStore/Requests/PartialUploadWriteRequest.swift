import ChatServerCore
import EventRuntime
import RedisClient

/// An interrupted upload's record saved or removed (``FileStoreScripts/writePartialScript``),
/// written behind: retried while Redis is unavailable, within reason (``WriteBehindRetries``: a
/// lost one only makes its resume start from 0). A save makes room for what it charges under
/// `maxBytes`; the content that left unused is in the outcome.
public struct PartialUploadWriteRequest: StoreRequest {
    public enum Outcome: Equatable, Sendable {
        case written(unusedContent: [String])
        case lost
    }

    public let write: PartialUploadWrite
    let maxBytes: Int64
    var retries = WriteBehindRetries()

    public init(_ write: PartialUploadWrite, maxBytes: Int64) {
        self.write = write
        self.maxBytes = maxBytes
    }

    public func start() -> StoreStep<Outcome> {
        let arguments: [String]
        switch write {
        case .save(let partial):
            arguments = ["save", partial.key, FileRecordFormat.encode(partial), FileRecordFormat.uploadKey(peer: partial.peer, id: partial.id),
                         String(partial.updated), String(maxBytes), FileOwner.party(owner: partial.owner, address: partial.address)]
        case .remove(let key):
            arguments = ["remove", key]
        }
        return .send([StoreCommand(FileStoreScripts.script(FileStoreScripts.writePartialScript, arguments), key: FileStoreScripts.keys[0])])
    }

    public mutating func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<Outcome> {
        switch results[0] {
        case .success(let reply):
            return .done(.written(unusedContent: reply.elements?.compactMap(\.text) ?? []))
        case .failure:
            return retries.retry() ? .wait(ReadPatience.retryDelay) : .done(.lost)
        }
    }
}
