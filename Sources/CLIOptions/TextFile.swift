import Glibc

/// Whole text files without Foundation: configuration files, scripts.
public enum TextFile {
    /// Why a file could not be read.
    public enum Failure: Error, Equatable {
        /// open or read failed with this errno.
        case system(Int32)
        /// The file is longer than the limit the caller set.
        case tooLarge(limit: Int)

        public var text: String {
            switch self {
            case .system(let code): String(cString: strerror(code))
            case .tooLarge(let limit): "longer than \(limit) bytes"
            }
        }
    }

    /// The contents of `path` as UTF-8 (invalid bytes become U+FFFD).
    public static func read(_ path: String, byteLimit: Int = Int.max) -> Result<String, Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.system(errno)) }
        defer { close(descriptor) }
        return read(descriptor: descriptor, byteLimit: byteLimit)
    }

    /// Everything left to read on `descriptor` (standard input, an open file).
    public static func read(descriptor: Int32, byteLimit: Int = Int.max) -> Result<String, Failure> {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failure(.system(errno)) }
            if count == 0 { break }
            bytes += buffer[..<count]
            if bytes.count > byteLimit { return .failure(.tooLarge(limit: byteLimit)) }
        }
        return .success(String(decoding: bytes, as: UTF8.self))
    }
}
