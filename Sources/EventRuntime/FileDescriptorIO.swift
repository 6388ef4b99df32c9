import Glibc

/// Whole reads and writes on an open file, past short counts and EINTR: the one copy the
/// client's and the server's file code share. Failures come back as the errno they ended on.
public enum FileDescriptorIO {
    /// Up to `count` bytes from `offset`; fewer only at the end of the file.
    public static func read(_ descriptor: Int32, at offset: Int64, count: Int) -> Result<[UInt8], Errno> {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return .failure(Errno(errno)) }
            if got == 0 { break }
            done += got
        }
        if done < count { bytes.removeLast(count - done) }
        return .success(bytes)
    }

    /// All of `bytes`; a write that takes nothing is reported as ENOSPC.
    public static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Result<Void, Errno> {
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .failure(Errno(count < 0 ? errno : ENOSPC)) }
            done += count
        }
        return .success(())
    }

    /// An errno value a file operation ended on.
    public struct Errno: Error, Equatable, Sendable {
        public let code: Int32
        public init(_ code: Int32) { self.code = code }
    }
}
