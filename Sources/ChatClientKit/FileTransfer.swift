import ChatProtocol
import QuicEngine

/// One upload or download of ``FileTransfers``: what it is, how far it got.
public struct FileTransfer: Sendable, Equatable {
    public enum Direction: Sendable, Equatable {
        /// A local file to a room or, with `to`, to one user.
        case upload(path: String, room: String?, to: String?)
        /// A shared file (its FID) into a local file.
        case download(file: String, destination: String)
    }

    /// The short number the person names it by (`/cancel N`).
    public let number: Int
    public let direction: Direction
    /// The file's name as the protocol carries it, its size and SHA-256.
    public let name: String
    public let size: Int64
    /// Empty while an upload's file is being hashed.
    public internal(set) var sha256: String
    /// The upload's `id` (also used to resume it).
    public let id: String
    /// Bytes sent (upload) or written (download) so far.
    public internal(set) var done: Int64 = 0
    /// When it started, for the rate.
    public let started: MonotonicTime
    /// Bytes done when it (re)started on the current connection, for the rate.
    var doneAtStart: Int64 = 0
    /// An upload's source as it was hashed (size and modification time), so a transfer resumed by
    /// a later run can tell the file changed since.
    public internal(set) var source: FileStamp?

    public var isUpload: Bool { if case .upload = direction { true } else { false } }

    /// Bytes a second since it started (0 at first).
    public func rate(now: MonotonicTime) -> Double {
        let seconds = Double((now - started).nanoseconds) / 1e9
        return seconds > 0.05 ? Double(done - doneAtStart) / seconds : 0
    }

    /// Seconds until done at the current rate, nil when unknown.
    public func secondsLeft(now: MonotonicTime) -> Double? {
        let rate = rate(now: now)
        return rate > 0 ? Double(size - done) / rate : nil
    }

    /// `12.3 MiB/100.0 MiB 45% 8.1 MiB/s 11 s left` for a status line or stderr (the caller shows
    /// the name, neutralised for its display).
    public func progressText(now: MonotonicTime) -> String {
        let percent = size > 0 ? Int(done * 100 / size) : 100
        return ([amountsText, "\(percent)%", rateText(now: now), timeLeftText(now: now)] as [String?]).compactMap { $0 }
            .joined(separator: " ")
    }

    /// `12.3 MiB/100.0 MiB`.
    public var amountsText: String { "\(Self.bytes(done))/\(Self.bytes(size))" }

    /// `8.1 MiB/s`, nil before the rate is known.
    public func rateText(now: MonotonicTime) -> String? {
        let rate = rate(now: now)
        return rate > 0 ? "\(Self.bytes(Int64(rate)))/s" : nil
    }

    /// `11 s left`, nil before the rate is known.
    public func timeLeftText(now: MonotonicTime) -> String? {
        secondsLeft(now: now).map { "\(Int($0.rounded(.up))) s left" }
    }

    /// Done over size, 1 for an empty file.
    public var fraction: Double { size > 0 ? Double(done) / Double(size) : 1 }

    /// A text (a server's reason) with every count of bytes written for people:
    /// "files are at most 52428800 bytes here" reads "files are at most 50.0 MiB here".
    public static func humanizingByteCounts(_ text: String) -> String {
        text.replacing(/(\d{4,}) bytes/) { match in Int64(match.1).map(bytes) ?? String(match.0) }
    }

    /// 1,536 → `1.5 KiB`.
    public static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(count) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}

/// What tells a local file changed: its size and its modification time (nanoseconds since the
/// Unix epoch).
public struct FileStamp: Sendable, Equatable {
    public let size: Int64
    public let modified: Int64

    public init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }
}
