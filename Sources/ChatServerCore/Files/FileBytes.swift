/// Bytes of files on the server's disk, as the core names them to the glue.
public enum FileBytes: Sendable, Hashable {
    /// Stored content, named by its SHA-256 (64 lowercase hex digits).
    case content(String)
    /// A partial upload's file, named by ``PartialUpload/key``.
    case partial(String)
}
