/// A stable colour per nick: FNV-1a of the lower-cased nick picks a palette entry, so a nick
/// keeps its colour across runs and machines (Swift's `hashValue` is seeded per process).
public enum NickPalette {
    /// Readable on dark and light backgrounds; black, white, greys and red (kept for errors)
    /// are left out.
    public static let colors: [UInt8] = [2, 3, 4, 5, 6, 10, 11, 12, 13, 14]

    public static func color(for nick: String) -> UInt8 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in nick.lowercased().utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return colors[Int(hash % UInt32(colors.count))]
    }
}
