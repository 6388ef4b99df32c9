/// Cuts a received IRC byte stream into lines at LF (a CR before it is dropped; empty lines are
/// skipped). A line longer than tags plus a message may be (8,191 + 512 bytes) is an error, so a
/// peer that never sends a line end cannot make the buffer grow without bound.
struct IRCLineReader {
    static let maximumLineBytes = IRCMessage.maximumTagBytes + IRCMessage.maximumLineBytes

    struct LineTooLong: Error, CustomStringConvertible {
        var description: String { "the server sent a line longer than \(IRCLineReader.maximumLineBytes) bytes" }
    }

    /// Received bytes; those before `start` have been handed out as lines.
    var buffer: [UInt8] = []
    private var start = 0

    /// Calls `body` with each complete line in `buffer` (for `TLSStreamSession.readPlaintext` to
    /// append to), then keeps only the incomplete rest.
    mutating func takeLines(_ body: (ArraySlice<UInt8>) -> Void) throws(LineTooLong) {
        var scan = start
        while let newline = buffer[scan...].firstIndex(of: 10) {
            var end = newline
            if end > start && buffer[end - 1] == 13 { end -= 1 }
            if end > start { body(buffer[start..<end]) }
            start = newline + 1
            scan = start
        }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        if buffer.count > IRCLineReader.maximumLineBytes { throw LineTooLong() }
    }
}
