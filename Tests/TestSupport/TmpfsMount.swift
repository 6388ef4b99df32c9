import Foundation
import Glibc

/// A small file system of its own (a tmpfs of `size`, mounted in a fresh temporary folder), for
/// tests of a full disk. Mounting needs root: tests using it are enabled only when ``isPossible``.
public final class TmpfsMount: Sendable {
    public let path: String

    /// Mounting a tmpfs needs root (CAP_SYS_ADMIN); without it the tests that need one are skipped.
    public static var isPossible: Bool { getuid() == 0 }

    /// `size` as mount(8) takes it: `1m`, `64m`.
    public init(size: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("qchat-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try ChildProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]).finish(timeout: 10)
        guard mounted.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw MountFailed(errors: mounted.errors)
        }
    }

    /// Free bytes for an unprivileged writer now.
    public var freeBytes: Int {
        var space = statvfs()
        return statvfs(path, &space) == 0 ? Int(space.f_bavail) * Int(space.f_frsize) : 0
    }

    public func unmount() {
        _ = try? ChildProcess("/bin/umount", [path]).finish(timeout: 10)
        try? FileManager.default.removeItem(atPath: path)
    }

    public struct MountFailed: Error { public let errors: String }
}
