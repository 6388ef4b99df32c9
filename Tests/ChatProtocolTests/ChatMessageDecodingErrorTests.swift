import Testing

@testable import ChatProtocol

/// How the decoder classifies input it refuses: bad-json versus bad-field.
struct ChatMessageDecodingErrorTests {
    /// Top-level values that are not objects, and empty input, are bad-json.
    @Test(arguments: ["", " ", "\n", "[]", #"["type"]"#, #""msg""#, "5", "null", "true", "false"])
    func rejectsNonObjects(json: String) {
        #expect(decodeError(json) == .badJSON)
    }

    /// Broken object syntax is bad-json.
    @Test(arguments: [
        "{", #"{"type":"a""#, #"{"type":"a","#, #"{"type":"a",}"#, #"{"type" "a"}"#, #"{"type":"a" "text":"b"}"#,
        #"{type:"a"}"#, #"{'type':'a'}"#, #"{"type":"a";"text":"b"}"#, #"{"type":}"#, #"{,"type":"a"}"#,
        #"{"type":"a"}}"#, #"{"type":"a"} x"#, #"{"type":"a"}{"type":"b"}"#, #"{"type":"a"}\u0000"#, "{\u{0}}",
        #"{"type":"a","members":["x",]}"#, #"{"type":"a","members":[,"x"]}"#, #"{"type":"a","x":[1 2]}"#,
        #"{"type":"a","x":{"k"}}"#, #"{"type":"a","x":{"k":1,}}"#, #"{"type":"a","x":tru}"#, #"{"type":"a","x":nul}"#,
        #"{"type":"a","x":True}"#, #"{"type":"a","x":undefined}"#, #"{"type":"a","x":NaN}"#, "\u{FEFF}{\"type\":\"a\"}",
    ])
    func rejectsBrokenSyntax(json: String) {
        #expect(decodeError(json) == .badJSON)
    }

    /// Number syntax outside RFC 8259 is bad-json, in known and unknown fields alike.
    @Test(arguments: ["01", "-", "1.", ".5", "+1", "1e", "1e+", "--1", "0x10", "1.e5", "-.5", "Infinity", "1_000"])
    func rejectsBadNumbers(literal: String) {
        #expect(decodeError(#"{"type":"a","seq":\#(literal)}"#) == .badJSON)
        #expect(decodeError(#"{"type":"a","unknown":\#(literal)}"#) == .badJSON)
    }

    /// Fractions, exponents and out-of-range values are valid JSON but not integers: bad-field.
    @Test(arguments: [
        "1.0", "1e3", "1E+2", "0.5", "-1.5", "1e-1", "9223372036854775808", "-9223372036854775809",
        "100000000000000000000",
    ])
    func rejectsNonIntegersInIntegerFields(literal: String) {
        for field in ["seq", "ts", "since", "before", "limit"] {
            #expect(decodeError(#"{"type":"a","\#(field)":\#(literal)}"#) == .badField(field))
        }
    }

    /// A non-integer number in an unknown field is fine.
    @Test func acceptsAnyNumberInUnknownField() {
        #expect(decodeError(#"{"type":"a","x":-1.5e-3,"y":1E400,"z":0}"#) == nil)
    }

    /// Each string field refuses every other JSON type.
    @Test(arguments: ["text", "sender", "room", "id", "peer", "to", "code"])
    func rejectsWrongTypeInStringField(field: String) {
        for value in ["5", "-1.5", "true", "false", "[]", #"["a"]"#, "{}", #"{"a":"b"}"#] {
            #expect(decodeError(#"{"type":"a","\#(field)":\#(value)}"#) == .badField(field), "\(value)")
        }
    }

    /// Each integer field refuses every non-number JSON type.
    @Test(arguments: ["seq", "ts", "since", "before", "limit"])
    func rejectsWrongTypeInIntegerField(field: String) {
        for value in [#""5""#, "true", "[]", "[5]", "{}"] {
            #expect(decodeError(#"{"type":"a","\#(field)":\#(value)}"#) == .badField(field), "\(value)")
        }
    }

    /// `replay` refuses everything but booleans and null.
    @Test(arguments: ["1", "0", #""true""#, "[]", "{}"])
    func rejectsWrongTypeInReplay(value: String) {
        #expect(decodeError(#"{"type":"a","replay":\#(value)}"#) == .badField("replay"))
    }

    /// `members` must be an array of strings only.
    @Test(arguments: [#""alice""#, "5", "true", "{}", #"["a",1]"#, #"["a",null]"#, #"[["a"]]"#, #"[{"a":"b"}]"#, "[false]"])
    func rejectsWrongMembers(value: String) {
        #expect(decodeError(#"{"type":"roster","members":\#(value)}"#) == .badField("members"))
    }

    /// A missing, null or non-string `type` is bad-field naming `type`.
    @Test(arguments: ["{}", #"{"text":"hi"}"#, #"{"type":null}"#, #"{"type":5}"#, #"{"type":["msg"]}"#, #"{"Type":"msg"}"#])
    func rejectsMissingType(json: String) {
        #expect(decodeError(json) == .badField("type"))
    }

    /// When several fields are bad, the first in field order is named, whatever the key order.
    @Test func namesFirstBadFieldInFieldOrder() {
        #expect(decodeError(#"{"replay":1,"seq":"x","text":2,"type":"a"}"#) == .badField("text"))
        #expect(decodeError(#"{"replay":1,"seq":"x"}"#) == .badField("seq"))
    }

    /// Invalid JSON wins over a bad field anywhere in the same message.
    @Test func badJSONWinsOverBadField() {
        #expect(decodeError(#"{"text":5,"#) == .badJSON)
        #expect(decodeError(#"{"type":"a","seq":1.5} x"#) == .badJSON)
        #expect(decodeError(#"{"seq":"x","other":[1,]}"#) == .badJSON)
    }

    /// Malformed escapes are bad-json: unknown letters, short or non-hex \u, lone or mismatched surrogates.
    @Test(arguments: [
        #"\x"#, #"\a"#, #"\U0041"#, #"\u12"#, #"\u12G4"#, #"\u 041"#, #"\ud83d"#, #"\ud83dx"#, #"\ud83d\u0041"#,
        #"\ud83d\ud83d"#, #"\ude00"#, #"\ude00\ud83d"#, #"\ud83d\"#, #"\ud83d\u"#, "\\\u{0}",
    ])
    func rejectsBadEscapes(escape: String) {
        #expect(decodeError(#"{"type":"a","text":"\#(escape)"}"#) == .badJSON)
        #expect(decodeError(#"{"type":"a","unknown":"\#(escape)"}"#) == .badJSON)
    }

    /// A backslash that ends the input is bad-json.
    @Test func rejectsBackslashAtEnd() {
        #expect(decodeError(#"{"type":"a","text":"\"#) == .badJSON)
    }

    /// Raw control characters inside a string are bad-json; they must be escaped.
    @Test(arguments: Array(UInt8(0x00)...UInt8(0x1F)))
    func rejectsRawControlCharacters(byte: UInt8) {
        let json = bytes(#"{"type":"a","text":"x"#) + [byte] + bytes(#""}"#)
        #expect(decodeError(json) == .badJSON)
    }

    /// Invalid UTF-8 inside a string (known or unknown field, or key) is bad-json.
    @Test(arguments: invalidUTF8Sequences)
    func rejectsInvalidUTF8InStrings(sequence: [UInt8]) {
        let inText = bytes(#"{"type":"a","text":""#) + sequence + bytes(#""}"#)
        let inUnknown = bytes(#"{"type":"a","u":["#) + [0x22] + sequence + bytes(#""]}"#)
        let inKey = bytes(#"{"type":"a",""#) + sequence + bytes(#"":1}"#)
        #expect(decodeError(inText) == .badJSON)
        #expect(decodeError(inUnknown) == .badJSON)
        #expect(decodeError(inKey) == .badJSON)
    }

    /// Non-ASCII bytes outside strings are bad-json.
    @Test func rejectsNonASCIIOutsideStrings() {
        #expect(decodeError(bytes(#"{"type":"a","x":"#) + [0xC3, 0xA9] + bytes("}")) == .badJSON)
    }

    /// Each error maps to the protocol's error code and has a readable reason.
    @Test func mapsErrorsToCodes() {
        #expect(ChatDecodeError.badJSON.errorCode == .badJSON)
        #expect(ChatDecodeError.badField("seq").errorCode == .badField)
        #expect(ChatDecodeError.badField("seq").reason.contains("seq"))
    }
}

/// Byte sequences that are not UTF-8, each for a different reason.
let invalidUTF8Sequences: [[UInt8]] = [
    [0xFF],  // never valid
    [0xFE],  // never valid
    [0x80],  // stray continuation byte
    [0xBF],  // stray continuation byte
    [0xC0, 0xAF],  // overlong "/"
    [0xC1, 0xBF],  // overlong
    [0xE0, 0x80, 0xAF],  // overlong 3-byte
    [0xE0, 0x9F, 0xBF],  // overlong 3-byte, top
    [0xF0, 0x80, 0x80, 0xAF],  // overlong 4-byte
    [0xF0, 0x8F, 0xBF, 0xBF],  // overlong 4-byte, top
    [0xED, 0xA0, 0x80],  // lone high surrogate U+D800
    [0xED, 0xBF, 0xBF],  // lone low surrogate U+DFFF
    [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80],  // surrogate pair encoded as CESU-8
    [0xF4, 0x90, 0x80, 0x80],  // U+110000, beyond Unicode
    [0xF5, 0x80, 0x80, 0x80],  // lead byte beyond Unicode
    [0xC3],  // truncated 2-byte
    [0xE2, 0x82],  // truncated 3-byte
    [0xF0, 0x9F, 0x8E],  // truncated 4-byte
    [0xC3, 0x41],  // lead byte followed by ASCII
    [0xE2, 0x28, 0xA1],  // bad second byte
]
