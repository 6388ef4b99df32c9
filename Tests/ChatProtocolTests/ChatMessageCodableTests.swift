import Foundation
import Testing

@testable import ChatProtocol

/// The Codable path (JSONEncoder/JSONDecoder) and the fast path must agree on every message.
struct ChatMessageCodableTests {
    /// JSONEncoder output decodes with the fast decoder to the same message.
    @Test(arguments: sampleMessages)
    func fastDecoderReadsJSONEncoderOutput(message: ChatMessage) throws {
        let data = try JSONEncoder().encode(message)
        #expect(try ChatMessage.decode(data) == message)
    }

    /// Fast encoder output decodes with JSONDecoder to the same message.
    @Test(arguments: sampleMessages)
    func jsonDecoderReadsFastEncoderOutput(message: ChatMessage) throws {
        let decoded = try JSONDecoder().decode(ChatMessage.self, from: Data(message.encodedLine()))
        #expect(decoded == message)
    }

    /// Both encoders write the same keys: always type, text and sender, and exactly the non-nil optionals.
    @Test(arguments: sampleMessages)
    func encodersWriteTheSameKeys(message: ChatMessage) throws {
        let viaCodable = try JSONSerialization.jsonObject(with: JSONEncoder().encode(message)) as? [String: Any]
        let viaFastPath = try JSONSerialization.jsonObject(with: Data(message.encodedDatagram())) as? [String: Any]
        let codableKeys = try #require(viaCodable).keys.sorted()
        #expect(codableKeys == (try #require(viaFastPath)).keys.sorted())
        #expect(Set(codableKeys).isSuperset(of: ["type", "text", "sender"]))
    }

    /// Both decoders agree on partial messages, nulls and unknown fields. (Not on duplicate keys:
    /// Foundation keeps the first, the protocol decoder the last, see `lastDuplicateKeyWins`.)
    @Test(arguments: [
        #"{"type":"msg"}"#, #"{"type":"msg","text":null,"sender":null,"seq":null}"#,
        #"{"type":"msg","extra":{"a":[1,2,{"b":null}]},"seq":-5}"#, #"{"text":"a","type":"b","sender":"c"}"#,
        #"{"type":"x","text":"\u00e9\ud83d\ude00\n","members":[]}"#,
    ])
    func decodersAgreeOnValidInput(json: String) throws {
        let viaCodable = try JSONDecoder().decode(ChatMessage.self, from: Data(json.utf8))
        #expect(try decode(json) == viaCodable)
    }

    /// Both decoders refuse a message without a string `type` or with a wrongly typed field.
    @Test(arguments: [#"{"text":"a"}"#, #"{"type":5}"#, #"{"type":"a","seq":"1"}"#, #"{"type":"a","members":[1]}"#])
    func decodersAgreeOnInvalidInput(json: String) {
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ChatMessage.self, from: Data(json.utf8)) }
        #expect(decodeError(json) != nil)
    }
}
