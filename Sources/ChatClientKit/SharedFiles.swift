import ChatProtocol

/// The shared files a client has seen (`file` events and notices), each with the short number
/// its line shows and `/get N` takes; a replay of the same file keeps its number. Numbers come
/// from the one counter of ``FileTransfers``, so that a file and the download of it have the
/// same number (`/get 5` starts transfer 5, `/cancel 5` stops it) and an upload's number is never
/// a file's. At most ``limit`` files are remembered (the oldest are forgotten first).
public struct SharedFiles: Sendable {
    public static let limit = 10_000
    private var byNumber: [Int: ChatMessage] = [:]
    private var numberByFile: [String: Int] = [:]
    private var fileByNumber: [Int: String] = [:]
    /// Numbers in the order they were given, for forgetting the oldest.
    private var order: [Int] = []
    private var oldest = 0

    public init() {}

    /// The number of a shared file: the one it has, or `next` (then advanced).
    mutating func number(for file: ChatMessage, next: inout Int) -> Int {
        let key = file.file ?? ""
        if let number = numberByFile[key] {
            if byNumber[number] == nil { byNumber[number] = file }
            return number
        }
        let number = next
        next += 1
        remember(key, as: number)
        byNumber[number] = file
        return number
    }

    /// A file we shared ourselves: its announcement, when it comes, takes the upload's number.
    mutating func remember(_ fileID: String, as number: Int) {
        guard numberByFile[fileID] == nil else { return }
        numberByFile[fileID] = number
        fileByNumber[number] = fileID
        order.append(number)
        while order.count - oldest > Self.limit {
            let forgotten = order[oldest]
            oldest += 1
            byNumber[forgotten] = nil
            if let file = fileByNumber.removeValue(forKey: forgotten) { numberByFile[file] = nil }
        }
        if oldest > Self.limit {
            order.removeFirst(oldest)
            oldest = 0
        }
    }

    public subscript(number: Int) -> ChatMessage? { byNumber[number] }
}
