import Foundation

/// "Both must produce and accept the same JSON" (ChatMessage+Codable.swift): what the fast encoder
/// writes, JSONDecoder reads back as the same message, and what JSONEncoder writes, the fast
/// decoder reads back as the same message.
func checkCodableParity(_ message: ChatMessage) {
    do {
        let fromFastEncoder = try JSONDecoder().decode(ChatMessage.self, from: Data(message.encodedDatagram()))
        require(fromFastEncoder.encodedDatagram() == message.encodedDatagram(),
                "JSONDecoder reads the fast encoder's output as the same message")
    } catch {
        fatalError("property violated: JSONDecoder rejects the fast encoder's output: \(error)")
    }
    do {
        let encoded = try JSONEncoder().encode(message)
        let fromJSONEncoder = try ChatMessage.decode(encoded)
        require(fromJSONEncoder.encodedDatagram() == message.encodedDatagram(),
                "the fast decoder reads JSONEncoder's output as the same message")
    } catch {
        fatalError("property violated: JSONEncoder's output does not round-trip: \(error)")
    }
}
