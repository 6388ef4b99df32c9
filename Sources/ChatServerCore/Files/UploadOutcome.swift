/// How the glue's receiving of an ``UploadJob`` ended.
public enum UploadOutcome: Sendable, Equatable {
    /// All `size` bytes arrived with the declared SHA-256, and they are in the content store
    /// under that hash (moved there from the partial file, or already there).
    case stored
    /// All bytes arrived, with another SHA-256; the partial file is gone.
    case badChecksum
    /// FIN after `received` of the file's bytes, fewer than its size; the partial file is gone.
    case incomplete(received: Int64)
    /// More bytes than the header's size; the partial file is gone.
    case tooLong
    /// A resume whose partial file holds `held` bytes, not the header's offset; nothing written.
    case badOffset(held: Int64)
    /// The stream was reset or the connection lost after `held` bytes were written: the partial
    /// file stays for a resume.
    case interrupted(held: Int64)
    /// The disk refused (full, an I/O error); what was written is gone. `reason` is for the log.
    case failed(reason: String)
    /// Writing on would leave less free disk than ``UploadJob/keepFree`` (where the files or the
    /// database are): the writing stopped before that, with `held` bytes in the partial file,
    /// which stay for a resume when there are any.
    case lowOnDisk(held: Int64)
}
