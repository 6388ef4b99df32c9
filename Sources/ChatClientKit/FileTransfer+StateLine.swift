import ChatProtocol
import QuicEngine

/// A transfer as one line of a session slot's state (``SessionSlot``), so that a later run can
/// resume it:
///
///     upload ID SIZE SHA256 DONE SOURCE_SIZE SOURCE_MODIFIED ROOM TO NAME PATH
///     download FID SIZE SHA256 DONE NAME DESTINATION
///
/// Fields are separated by one space and percent-encoded (``StateField``); `-` stands for no room
/// or no recipient (neither a room nor a nick can be `-`). A line that is not exactly this is
/// nil: the state is the client's own, so damage means it is not used, never guessed at.
extension FileTransfer {
    public var stateLine: String {
        let common = [id, String(size), sha256, String(done)]
        switch direction {
        case .upload(let path, let room, let recipient):
            let source = source ?? FileStamp(size: size, modified: 0)
            return (["upload"] + common + [String(source.size), String(source.modified), room ?? "-", recipient ?? "-", name, path])
                .map(StateField.encode).joined(separator: " ")
        case .download(let file, let destination):
            return (["download", file, String(size), sha256, String(done), name, destination]).map(StateField.encode).joined(separator: " ")
        }
    }

    /// The transfer a state line describes, numbered `number`, started now.
    public init?(stateLine: Substring, number: Int, started: MonotonicTime) {
        let fields = stateLine.split(separator: " ", omittingEmptySubsequences: false).map(StateField.decode)
        guard fields.allSatisfy({ $0 != nil }) else { return nil }
        let values = fields.map { $0! }
        guard values.count >= 7, let size = Int64(values[2]), size >= 0, let done = Int64(values[4]), (0...size).contains(done),
              ChatValidation.isValidSHA256(values[3]) else { return nil }
        switch values[0] {
        case "upload":
            guard values.count == 11, let sourceSize = Int64(values[5]), let modified = Int64(values[6]),
                  ChatValidation.isValidMessageID(values[1]), !values[10].isEmpty else { return nil }
            let room = values[7] == "-" ? nil : values[7]
            let recipient = values[8] == "-" ? nil : values[8]
            guard (room == nil) != (recipient == nil) else { return nil }
            self.init(number: number, direction: .upload(path: values[10], room: room, to: recipient), name: values[9], size: size,
                      sha256: values[3], id: values[1], started: started)
            source = FileStamp(size: sourceSize, modified: modified)
        case "download":
            guard values.count == 7, !values[1].isEmpty, values[6].hasPrefix("/") else { return nil }
            self.init(number: number, direction: .download(file: values[1], destination: values[6]), name: values[5], size: size,
                      sha256: values[3], id: values[1], started: started)
        default:
            return nil
        }
        self.done = done
    }
}

/// One field of a line of the client's state: every byte but ASCII letters, digits and
/// `. _ ~ / : @ + , = -` is written `%XX`, so a field never holds a space or a line break
/// whatever a path or a name from the network contains.
enum StateField {
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if isPlain(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// Nil for a `%` not followed by two hex digits, a byte that should have been encoded, or
    /// bytes that are not UTF-8.
    static func decode(_ field: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = field.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                guard isPlain(byte) else { return nil }
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "._~/:@+,=-".utf8.contains(byte)
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
