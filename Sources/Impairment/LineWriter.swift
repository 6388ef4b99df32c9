import EventRuntime
import Glibc

/// Writes whole lines straight to a descriptor with write(2), so every line is flushed at once
/// (a test waiting for `READY` must not wait on stdio buffering) and lines from one thread are
/// never interleaved mid-line. A closed reader (EPIPE) only loses the output, never the proxy.
public struct LineWriter: Sendable {
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public static let standardOutput = LineWriter(descriptor: STDOUT_FILENO)
    public static let standardError = LineWriter(descriptor: STDERR_FILENO)

    public func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        _ = bytes.withUnsafeBytes { FileDescriptorIO.write($0, to: descriptor) }
    }
}
