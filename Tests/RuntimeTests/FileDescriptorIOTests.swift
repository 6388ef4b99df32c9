import Foundation
import Glibc
import EventRuntime
import Testing

/// Whole reads and writes on a file: what is written reads back from any offset, a read past
/// the end comes back short, and a bad descriptor is an error naming its errno.
@Suite("file descriptor reads and writes")
struct FileDescriptorIOTests {
    @Test func writesReadBackShortAtTheEndAndFailOnABadDescriptor() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fdio-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        defer { close(descriptor); unlink(path) }
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let written = bytes.withUnsafeBytes { FileDescriptorIO.write($0, to: descriptor) }
        #expect((try? written.get()) != nil)
        #expect(try FileDescriptorIO.read(descriptor, at: 0, count: bytes.count).get() == bytes)
        #expect(try FileDescriptorIO.read(descriptor, at: 99_990, count: 64).get() == Array(bytes[99_990...]))
        #expect(try FileDescriptorIO.read(descriptor, at: 200_000, count: 10).get() == [])
        #expect(throws: FileDescriptorIO.Errno(EBADF)) { try FileDescriptorIO.read(-1, at: 0, count: 1).get() }
    }
}
