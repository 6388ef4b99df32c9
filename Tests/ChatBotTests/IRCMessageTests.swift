@testable import ChatBot
import Testing

/// The IRC line parser and encoder irc-load talks to IRC servers with, and its line framing.
@Suite("IRC lines")
struct IRCMessageTests {
    private func parse(_ line: String) -> IRCMessage? { IRCMessage(parsing: Array(line.utf8)) }

    /// A relayed PRIVMSG with IRCv3 tags, source, middle and trailing parameters parses into
    /// its parts; the nick is the source up to `!`.
    @Test func parsesTagsSourceAndParameters() throws {
        let message = try #require(parse("@time=2026-12-01T19:44:29.436Z;msgid=772~1~0;inspircd.org/echo :a1!a1@127.0.0.1 PRIVMSG #x :hello there"))
        #expect(message.tags == ["time": "2026-12-01T19:44:29.436Z", "msgid": "772~1~0", "inspircd.org/echo": ""])
        #expect(message.source == "a1!a1@127.0.0.1")
        #expect(message.sourceNick == "a1")
        #expect(message.command == "PRIVMSG")
        #expect(message.parameters == ["#x", "hello there"])
    }

    /// Lines without tags or source, numerics, repeated spaces, an empty trailing parameter and
    /// a trailing parameter that starts with a colon itself.
    @Test func parsesTheShapesServersSend() throws {
        #expect(parse("PING :irc.bench") == IRCMessage(command: "PING", parameters: ["irc.bench"]))
        #expect(parse(":irc.bench 001 a1 :Welcome to the bench IRC Network a1!a1@127.0.0.1")
            == IRCMessage(source: "irc.bench", command: "001", parameters: ["a1", "Welcome to the bench IRC Network a1!a1@127.0.0.1"]))
        #expect(parse(":s   CAP  *   ACK :echo-message message-tags")?.parameters == ["*", "ACK", "echo-message message-tags"])
        #expect(parse(":s TOPIC #x :")?.parameters == ["#x", ""])
        #expect(parse(":s PRIVMSG #x ::-)")?.parameters == ["#x", ":-)"])
        #expect(parse(":a1!a1@h JOIN #x")?.parameters == ["#x"])
        #expect(parse("@a=b ") == nil, "tags alone are no message")
        #expect(parse(":source") == nil, "a source alone is no message")
        #expect(parse("") == nil)
    }

    /// Tag values are unescaped as IRCv3 says, and escaped back the same way.
    @Test func tagValuesRoundTripTheirEscapes() throws {
        let message = try #require(parse(#"@k=a\:b\sc\\d\re\nf\x\ PING"#))
        #expect(message.tags["k"] == "a;b c\\d\re\nfx")
        let encoded = try #require(IRCMessage(tags: ["k": "a;b c\\d\r\n"], command: "PING").encoded())
        #expect(String(decoding: encoded, as: UTF8.self) == #"@k=a\:b\sc\\d\r\n PING"# + "\r\n")
        #expect(parse(String(decoding: encoded.dropLast(2), as: UTF8.self))?.tags["k"] == "a;b c\\d\r\n")
    }

    /// Encoding puts a colon before a last parameter that needs one, ends with CR LF, and
    /// parses back to the same message.
    @Test func encodesWhatItParses() throws {
        let messages = [
            IRCMessage(command: "PRIVMSG", parameters: ["#load0", "L3.17.123456 xxxx"]),
            IRCMessage(command: "USER", parameters: ["load1", "0", "*", "load1"]),
            IRCMessage(command: "CAP", parameters: ["REQ", "echo-message message-tags server-time"]),
            IRCMessage(command: "TOPIC", parameters: ["#x", ""]),
            IRCMessage(source: "n!u@h", command: "PRIVMSG", parameters: ["#x", ":-)"]),
        ]
        for message in messages {
            let encoded = try #require(message.encoded(), "\(message)")
            #expect(encoded.suffix(2) == [13, 10])
            #expect(parse(String(decoding: encoded.dropLast(2), as: UTF8.self)) == message)
        }
        #expect(String(decoding: messages[0].encoded() ?? [], as: UTF8.self) == "PRIVMSG #load0 :L3.17.123456 xxxx\r\n")
        #expect(String(decoding: messages[1].encoded() ?? [], as: UTF8.self) == "USER load1 0 * load1\r\n")
    }

    /// What cannot be sent as one line is refused rather than sent mangled: line ends or NUL
    /// anywhere, a spaced or empty middle parameter, one starting with a colon, and more than
    /// 512 bytes without the tags.
    @Test func refusesWhatIsNotOneLine() {
        #expect(IRCMessage(command: "PRIVMSG", parameters: ["#x", "two\r\nQUIT"]).encoded() == nil)
        #expect(IRCMessage(command: "PRIVMSG", parameters: ["#x", "nul\u{0}"]).encoded() == nil)
        #expect(IRCMessage(command: "PRIVMSG", parameters: ["#x y", "text"]).encoded() == nil)
        #expect(IRCMessage(command: "PRIVMSG", parameters: ["", "text"]).encoded() == nil)
        #expect(IRCMessage(command: "PRIVMSG", parameters: [":x", "text"]).encoded() == nil)
        #expect(IRCMessage(command: "", parameters: []).encoded() == nil)
        let fits = "x " + String(repeating: "x", count: 512 - "PRIVMSG #x :x \r\n".utf8.count)
        #expect(IRCMessage(command: "PRIVMSG", parameters: ["#x", fits]).encoded()?.count == 512)
        #expect(IRCMessage(command: "PRIVMSG", parameters: ["#x", fits + "x"]).encoded() == nil)
        #expect(IRCMessage(tags: ["a": String(repeating: "t", count: 600)], command: "PRIVMSG", parameters: ["#x", fits]).encoded() != nil,
                "tags do not count against the 512 bytes")
    }

    /// The line reader cuts at LF whatever the reads' boundaries, drops CR and empty lines,
    /// keeps an incomplete line for the next read, and refuses a line that never ends.
    @Test func lineReaderReassemblesAndBounds() throws {
        var reader = IRCLineReader()
        var lines: [String] = []
        for chunk in ["PING :a\r", "\n\r\n:s 001 x :hi", "\nPRIVMSG #x :no cr\nPART"] {
            reader.buffer += Array(chunk.utf8)
            try reader.takeLines { lines.append(String(decoding: $0, as: UTF8.self)) }
        }
        #expect(lines == ["PING :a", ":s 001 x :hi", "PRIVMSG #x :no cr"])
        #expect(reader.buffer == Array("PART".utf8))
        reader.buffer += [UInt8](repeating: 120, count: IRCLineReader.maximumLineBytes)
        #expect(throws: IRCLineReader.LineTooLong.self) { try reader.takeLines { _ in } }
    }

    /// irc-load's --size is bounded so a relayed PRIVMSG fits an IRC line; its other flags are
    /// chat-bot load's, without typing and churn, and its port defaults to 6697.
    @Test func ircLoadOptions() throws {
        let options = try LoadOptions(["--clients", "5", "--size", "200", "--insecure"], irc: true)
        #expect(options.irc && options.clients == 5 && options.size == 200 && options.connection.port == 6697)
        #expect(throws: (any Error).self) { try LoadOptions(["--size", "401", "--insecure"], irc: true) }
        #expect(throws: (any Error).self) { try LoadOptions(["--typing", "10", "--insecure"], irc: true) }
        #expect(throws: (any Error).self) { try LoadOptions(["--churn", "1", "--insecure"], irc: true) }
        #expect(try LoadOptions(["--size", "401", "--insecure"]).connection.port == 4433)
    }
}
