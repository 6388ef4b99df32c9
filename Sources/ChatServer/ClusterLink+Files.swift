import ChatServerCore
import ClusterStore
import EventRuntime
import RedisClient

/// File records in Redis (``FileStoreScripts``, ``FileRecordFormat``): the node's reads and
/// writes of them, ClusterStore's requests (``FilesLoad``, ``FileRecordStore``,
/// ``PartialUploadWriteRequest``, ``PartialUploadsExpiry``).
extension ClusterLink {
    /// ``ClusterKeys/filesFolder``, under the name the app's message gives.
    static let folderKey = ClusterKeys.filesFolder

    func loadFiles(_ token: UInt64, _ query: FileQuery) {
        requests.run(FilesLoad(query, startedAt: .now())) { [report, logger] outcome in
            switch outcome {
            case .loaded(let loaded): report(.filesLoaded(token, loaded))
            case .malformed: report(.filesLoaded(token, nil))
            case .failed(let error):
                logger(.error, "file records read failed", ["error": "\(error)"])
                report(.filesLoaded(token, nil))
            }
        }
    }

    func storeFileRecord(_ token: UInt64, _ file: StoredFile, maxBytes: Int64) {
        requests.run(FileRecordStore(file, maxBytes: maxBytes)) { [report] in report(.fileRecordStored(token, $0)) }
    }

    func writePartials(_ writes: [PartialUploadWrite], maxBytes: Int64) {
        for write in writes {
            requests.run(PartialUploadWriteRequest(write, maxBytes: maxBytes)) { [report, logger] outcome in
                switch outcome {
                case .written(let unused): if !unused.isEmpty { report(.contentEvicted(unused)) }
                case .lost: logger(.error, "interrupted upload record lost", [:])
                }
            }
        }
    }

    /// Interrupted uploads not resumed within `lifetime` (by any node): their records and bytes go.
    func expirePartials(olderThan lifetime: TimeSpan) {
        let cutoff = unixMilliseconds() - Int64(lifetime.nanoseconds / 1_000_000)
        requests.run(PartialUploadsExpiry(cutoff: cutoff)) { [weak self] keys in
            guard let self, !keys.isEmpty else { return }
            writePartials(keys.map { .remove(key: $0) }, maxBytes: .max)
            report(.partialsExpired(keys))
        }
    }
}
