import ChatServerCore
import EventRuntime
import RedisClient

/// A finished upload's record (``FileStoreScripts/storeFileScript``): a durable write (its
/// uploader is told the file is stored); the store makes room under `maxBytes` and answers the
/// record kept and the content no record uses any more.
public struct FileRecordStore: StoreRequest {
    public let file: StoredFile
    let maxBytes: Int64

    public init(_ file: StoredFile, maxBytes: Int64) {
        self.file = file
        self.maxBytes = maxBytes
    }

    public func start() -> StoreStep<FileRecordOutcome> {
        let arguments = [file.id, FileRecordFormat.encode(file), FileRecordFormat.uploadKey(peer: file.uploaderPeer, id: file.uploadID), file.sha256,
                         String(file.size), String(file.ts), String(maxBytes)]
        return .send([StoreCommand(FileStoreScripts.script(FileStoreScripts.storeFileScript, arguments), key: FileStoreScripts.keys[0], durable: true)])
    }

    public func answered(_ results: [Result<RedisReply, RoomStoreError>], now: MonotonicTime) -> StoreStep<FileRecordOutcome> {
        switch results[0] {
        case .failure(let error):
            return .done(.failed("\(error)"))
        case .success(let reply):
            guard let parts = reply.elements, parts.count >= 2, let stored = parts[1].bytes.flatMap(FileRecordFormat.decodeFile) else {
                return .done(.failed("store answered \(reply)"))
            }
            return .done(.stored(stored, unusedContent: parts.dropFirst(2).compactMap(\.text)))
        }
    }
}
