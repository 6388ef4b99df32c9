/// libFuzzer target: one message (a datagram, or a frame the stream decoder cut) into
/// ``ChatMessage/decode(_:idOnFailure:)``, and any text into the rules of ``ChatValidation``.
///
/// Properties checked on every input:
/// - decoding never traps; an error names a known field and echoes no id it could not read;
/// - a decoded message re-encodes to itself, byte for byte, with the fast encoder and with
///   Codable (Foundation's JSONEncoder and JSONDecoder), in both directions;
/// - a datagram and a stream holding the same bytes agree: one decodes to a message exactly when
///   the other yields that message and nothing else;
/// - every validation verdict matches PROTOCOL.md section 4, written out independently, for the
///   input as text and for every string field of a decoded message.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var random = inputDerivedRandom(input)
    var idOnFailure: String?
    let decoded: ChatMessage?
    var isJSON = true
    do {
        decoded = try ChatMessage.decode(input, idOnFailure: &idOnFailure)
    } catch {
        checkDecodeError(error, id: idOnFailure)
        decoded = nil
        isJSON = error != .badJSON
    }
    checkJSONVerdict(input, decoderSaysJSON: isJSON)
    checkStreamAgreement(input, decoded: decoded)
    if let decoded {
        checkRoundTrip(decoded)
        checkCodableParity(decoded)
        for text in decoded.strings {
            checkValidation(of: text, using: &random)
        }
    }
    checkValidation(of: String(decoding: input, as: UTF8.self), using: &random)
    return 0
}

/// The stream decoder yields exactly one message from these bytes, and nothing else, when and only
/// when they decode as a datagram; a stream accepts the same leading and trailing whitespace.
private func checkStreamAgreement(_ input: UnsafeRawBufferPointer, decoded: ChatMessage?) {
    guard input.count < ChatLimits.maxStreamMessageBytes else { return }
    var decoder = ChatStreamDecoder()
    let events = decoder.feed(input) + decoder.finish()
    if let decoded {
        require(exactlyEqual(events, [.message(decoded)]), "a datagram that decodes is one message on a stream")
    } else if events.count == 1, case .message = events[0] {
        fatalError("property violated: a stream yields one message from bytes that do not decode as a datagram")
    }
}

extension ChatMessage {
    /// Every string the message carries, for the validation checks.
    fileprivate var strings: [String] {
        [type, text, sender, room, id, peer, to, code].compactMap { $0 } + (members ?? [])
    }
}
