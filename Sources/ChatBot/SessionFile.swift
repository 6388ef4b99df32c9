/// `--session-file`: a TLS session ticket kept between runs of chat-bot, as hexadecimal text, so
/// that a second run's connections resume (a reconnect storm, measured against a full one).
/// The ticket holds session secrets: the file is written readable by its owner only.
enum SessionFile {
    /// The ticket in `path`, or nil when there is none (a missing or unreadable file is a first run).
    static func load(_ path: String) -> [UInt8]? {
        guard let text = FileInput.read(path) else { return nil }
        let digits = Array(text.utf8.filter { $0 != 10 && $0 != 13 })
        guard !digits.isEmpty, digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    static func save(_ ticket: [UInt8], to path: String) -> Bool {
        let hex = "0123456789abcdef".utf8.map { $0 }
        var text: [UInt8] = []
        text.reserveCapacity(ticket.count * 2 + 1)
        for byte in ticket {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0xF)])
        }
        text.append(10)
        return FileInput.write(String(decoding: text, as: UTF8.self), to: path, mode: 0o600)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 97...102: digit - 87
        case 65...70: digit - 55
        default: nil
        }
    }
}
