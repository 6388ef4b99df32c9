import ChatProtocol

/// The shared files a client has seen (`file` events and notices), each with the short number
/// its line shows and `/get N` takes; a replay of the same file keeps its number. At most
/// ``limit`` are remembered (the oldest numbers are forgotten first).
public struct SharedFiles: Sendable {
    public static let limit = 10_000
    private var byNumber: [Int: ChatMessage] = [:]
    private var numberByFile: [String: Int] = [:]
    private var next = 1

    public init() {}

    /// The number of a shared file, given on first sight.
    public mutating func number(for file: ChatMessage) -> Int {
        let key = file.file ?? ""
        if let number = numberByFile[key] { return number }
        let number = next
        next += 1
        byNumber[number] = file
        numberByFile[key] = number
        if let forgotten = byNumber[number - Self.limit] {
            byNumber[number - Self.limit] = nil
            numberByFile[forgotten.file ?? ""] = nil
        }
        return number
    }

    public subscript(number: Int) -> ChatMessage? { byNumber[number] }
}
