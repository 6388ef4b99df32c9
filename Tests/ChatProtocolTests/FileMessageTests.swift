import Foundation
import Testing

@testable import ChatProtocol

/// The messages of file streams (PROTOCOL.md section 9): the new fields on the wire, the rules
/// for names and checksums, the neutralising of names from the network, and the reader of a file
/// stream's header line.
struct FileMessageTests {
    static let digest = String(repeating: "ab", count: 32)

    /// An upload header, an ack and a room file event encode with the new fields last, and decode back.
    @Test func fileMessagesRoundTrip() throws {
        let upload = ChatMessage.upload(id: "u-1", room: "dev", name: "notes.txt", size: 12, sha256: Self.digest, offset: 4)
        #expect(String(decoding: upload.encodedDatagram(), as: UTF8.self)
            == #"{"type":"upload","room":"dev","sender":"","text":"notes.txt","id":"u-1","size":12,"sha256":"\#(Self.digest)","offset":4}"#)
        let event = ChatMessage.fileAnnouncement(file: "f1", name: "a b.png", size: 1 << 40, sha256: Self.digest, sender: "alice",
                                                 id: "u-1", room: "dev", to: nil, seq: 9, ts: 1000, account: nil)
        let ack = ChatMessage.uploadAck(id: "u-1", file: "f1", seq: nil, ts: 5)
        for message in [upload, event, ack, ChatMessage.download(file: "f1", offset: 0),
                        ChatMessage.fileHeader(file: "f1", name: "x", size: 0, sha256: Self.digest, offset: 0)] {
            #expect(try ChatMessage.decode(message.encodedLine().dropLast()) == message)
            #expect(try JSONDecoder().decode(ChatMessage.self, from: Data(message.encodedDatagram())) == message)
        }
        #expect(MessageType(rawValue: "upload") == .upload && MessageType(rawValue: "file") == .file)
        #expect(ErrorCode(rawValue: "bad-offset") == .badOffset && ErrorCode(rawValue: "no-such-file") == .noSuchFile)
    }

    /// Wrong JSON types in the file fields are bad-field naming the field; a fractional size is one too.
    @Test(arguments: [
        (#"{"type":"upload","size":"12"}"#, "size"),
        (#"{"type":"upload","size":1.5}"#, "size"),
        (#"{"type":"upload","sha256":12}"#, "sha256"),
        (#"{"type":"download","file":["f"]}"#, "file"),
        (#"{"type":"download","offset":true}"#, "offset"),
    ])
    func wrongTypesAreBadField(_ json: String, _ field: String) {
        #expect(decodeError(json) == .badField(field))
    }

    /// Names are 1 to 255 bytes of UTF-8 without `/` or control characters; `..` passes (receivers neutralise).
    @Test func fileNameRules() {
        for good in ["a", "notes.txt", "..", "ünïcode ✓.pdf", String(repeating: "é", count: 127)] {
            #expect(ChatValidation.isValidFileName(good), "\(good)")
        }
        for bad in ["", "a/b", "/etc/passwd", "tab\there", "nl\n", "esc\u{1B}[2J", "del\u{7F}", "c1\u{9B}x",
                    String(repeating: "a", count: 256), String(repeating: "é", count: 128)] {
            #expect(!ChatValidation.isValidFileName(bad), "\(bad.debugDescription)")
        }
    }

    /// A checksum is exactly 64 lowercase hex digits.
    @Test func checksumRules() {
        #expect(ChatValidation.isValidSHA256(Self.digest))
        #expect(!ChatValidation.isValidSHA256(Self.digest.uppercased()))
        #expect(!ChatValidation.isValidSHA256(String(Self.digest.dropLast())))
        #expect(!ChatValidation.isValidSHA256(Self.digest + "0"))
        #expect(!ChatValidation.isValidSHA256(String(repeating: "g", count: 64)))
    }

    /// Names from the network become one harmless path component: no separator, no `..`, no control
    /// character, no leading dot or dash, at most 255 bytes with the extension kept.
    @Test(arguments: [
        ("../x", "_x"), ("/etc/passwd", "_etc_passwd"), ("..", "file"), (".", "file"), ("", "file"),
        ("a\u{1B}[31mred", "a_[31mred"), ("new\nline", "new_line"), ("back\\slash", "back_slash"),
        (".hidden", "hidden"), ("-rf", "rf"), ("name. ", "name"), ("ok (1).txt", "ok (1).txt"), ("nul\u{0}x", "nul_x"),
    ])
    func safeNames(_ name: String, _ expected: String) {
        #expect(ChatValidation.safeFileName(name) == expected)
    }

    /// A long name is cut between scalars to 255 bytes, its extension kept.
    @Test func longNamesKeepTheirExtension() {
        let safe = ChatValidation.safeFileName(String(repeating: "é", count: 300) + ".tar.gz")
        #expect(safe.utf8.count <= 255 && safe.utf8.count >= 250)
        #expect(safe.hasSuffix("é.gz"))
        #expect(ChatValidation.splitExtension("archive.tar.gz") == ("archive.tar", ".gz"))
        #expect(ChatValidation.splitExtension(".profile") == (".profile", ""))
        #expect(ChatValidation.splitExtension("noext") == ("noext", ""))
    }

    /// The header ends at the first LF; bytes after it are body, even when the line arrives in pieces.
    @Test func headerReaderSplitsHeaderFromBody() throws {
        let header = ChatMessage.download(file: "f1").encodedLine()
        var reader = FileStreamHeaderReader()
        #expect(reader.feed(Array(header.prefix(5)), fin: false) == .needsMore)
        let outcome = reader.feed(Array(header.dropFirst(5)) + [1, 2, 10, 3], fin: false)
        #expect(outcome == .header(.message(ChatMessage.download(file: "f1")), bodyStart: header.count - 5))
    }

    /// A header without LF but with FIN is decoded; garbage, two objects or an empty line are bad-json.
    @Test func headerReaderJudgesTheLine() {
        var finished = FileStreamHeaderReader()
        #expect(finished.feed(bytes(#"{"type":"download","file":"x"}"#), fin: true)
            == .header(.message(ChatMessage.download(file: "x")), bodyStart: 30))
        for bad in ["nope\n", "{\"type\":\"a\"}{\"type\":\"b\"}\n", "\n"] {
            var reader = FileStreamHeaderReader()
            guard case .header(.malformed(.badJSON, _), _) = reader.feed(bytes(bad), fin: false) else {
                Issue.record("\(bad.debugDescription) was not bad-json")
                continue
            }
        }
    }

    /// A header line longer than a stream message may be is a framing violation, whatever follows.
    @Test func oversizedHeaderIsFatal() {
        var reader = FileStreamHeaderReader()
        let long = [UInt8](repeating: 0x20, count: ChatLimits.maxStreamMessageBytes - 1)
        #expect(reader.feed(long, fin: false) == .needsMore)
        #expect(reader.feed([0x20, 10], fin: false) == .header(.fatal(.tooLarge), bodyStart: 2))
        var exact = FileStreamHeaderReader()
        let fits = Array(#"{"type":"download"}"#.utf8) + [UInt8](repeating: 0x20, count: ChatLimits.maxStreamMessageBytes - 20) + [10]
        #expect(fits.count == ChatLimits.maxStreamMessageBytes)
        guard case .header(.message, _) = exact.feed(fits, fin: false) else {
            Issue.record("a header of exactly the limit was refused")
            return
        }
    }
}
