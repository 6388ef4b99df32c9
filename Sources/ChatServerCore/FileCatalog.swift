/// Where file records and partial uploads live: beside the history, in memory or in the
/// `--db` file (PROTOCOL.md section 9). The bytes themselves are the glue's, on disk.
///
/// Called from the server's one thread. `storeFile` commits the record and its room event in one
/// transaction, so an acknowledged room file always has both.
public protocol FileCatalog: AnyObject {
    /// Stores a file's record and, for a room file, its `file` event (pruning the room to at least
    /// `retainPerRoom` events), in one transaction.
    func storeFile(_ file: StoredFile, event: StoredEvent?, retainPerRoom: Int) throws
    func file(id: String) throws -> StoredFile?
    /// The file `peer` uploaded with `id`, if still stored: the receipt of a completed upload.
    func file(uploadedBy peer: String, id: String) throws -> StoredFile?
    /// Bytes of distinct content stored (the same bytes count once).
    func storedBytes() throws -> Int64
    /// Whether any file has this content.
    func hasContent(_ sha256: String) throws -> Bool
    /// Bytes of the files counted against `owner`.
    func bytesOwned(by owner: String) throws -> Int64
    /// The oldest stored file, for eviction.
    func oldestFile() throws -> StoredFile?
    /// Removes a file's record; returns whether its content is now unused.
    func removeFile(id: String) throws -> Bool

    func savePartial(_ partial: PartialUpload) throws
    func partial(peer: String, id: String) throws -> PartialUpload?
    func removePartial(key: String) throws
    /// Partial uploads not touched since `ts`.
    func partials(updatedBefore ts: Int64) throws -> [PartialUpload]
    /// The sizes of the partial uploads held (all of them, or those of `owner`), but the one with `exceptKey`.
    func partialBytes(owner: String?, exceptKey: String?) throws -> Int64
}
