/// SQLite's `PRAGMA synchronous` in WAL mode, i.e. when a commit reaches the disk.
public enum SQLiteSynchronousMode: String, Sendable, CaseIterable {
    /// A commit is written to the WAL file before `append` returns, but fsync happens only
    /// at checkpoints. A committed event survives the process being killed (`kill -9`: the
    /// kernel still holds the written pages); a power loss may lose the latest commits but
    /// never corrupts the file. The default: one fsync per chat message would cap a disk at
    /// a few hundred messages a second.
    case normal = "NORMAL"
    /// Every commit is fsynced before `append` returns: survives power loss too, slower.
    case full = "FULL"
}
