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
    /// Gives a room file's record the seq of its `file` event, stored after the record (a store
    /// reached through actions): a repeated upload's `ack` carries it (PROTOCOL.md section 9).
    func setSequence(_ seq: Int64, ofFile id: String) throws
    /// The file `peer` uploaded with `id`, if still stored: the receipt of a completed upload.
    func file(uploadedBy peer: String, id: String) throws -> StoredFile?
    /// Whether any file has this content.
    func hasContent(_ sha256: String) throws -> Bool
    /// What `scope` holds, leaving out the partial upload `exceptPartial` (the one a header replaces or resumes).
    func usage(of scope: FileScope, exceptPartial: String?) throws -> FileUsage
    /// The file eviction takes next by ``FileEvictionRule``, `uploaderParty` counting `adding`
    /// bytes more (the file being made room for): the oldest file of the party holding the most,
    /// or of the newcomers to it when it is an account of an exempt address.
    func nextEviction(uploaderParty: String, adding: Int64) throws -> StoredFile?
    /// Removes a file's record; returns whether its content is now unused.
    func removeFile(id: String) throws -> Bool

    func savePartial(_ partial: PartialUpload) throws
    func partial(peer: String, id: String) throws -> PartialUpload?
    func removePartial(key: String) throws
    /// Partial uploads not touched since `ts`.
    func partials(updatedBefore ts: Int64) throws -> [PartialUpload]
}
