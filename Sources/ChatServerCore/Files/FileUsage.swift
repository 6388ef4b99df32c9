/// What one ``FileScope`` holds: what quotas, `--files-max-bytes` and the limits on uploads in
/// progress are checked against.
public struct FileUsage: Sendable, Equatable {
    /// Bytes of its stored files (for everyone: of distinct content, the same bytes once).
    public var fileBytes: Int64
    /// Bytes its uploads in progress and interrupted ones are charged (``PartialUpload/charged``).
    public var partialBytes: Int64
    /// Its uploads in progress and interrupted ones.
    public var partials: Int

    public init(fileBytes: Int64 = 0, partialBytes: Int64 = 0, partials: Int = 0) {
        self.fileBytes = fileBytes
        self.partialBytes = partialBytes
        self.partials = partials
    }
}
