/// libFuzzer target: the bytes of one QUIC stream into ``ChatStreamDecoder``.
///
/// Properties checked on every input:
/// - the events do not depend on how the stream is cut into feeds (whole, byte by byte, random
///   chunks through both feed APIs), with the protocol's limit and with a small one;
/// - fewer than `maxMessageBytes` bytes are buffered after any feed;
/// - a fatal event is the last one, and `finish` resets the decoder for a new stream;
/// - a small limit changes nothing but ending the stream early with `too-large`;
/// - `invalid-utf8` is reported exactly when the stream is not UTF-8 (the stdlib's verdict);
/// - every decoded message re-encodes to the same message; every error names a known field.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreamDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var random = inputDerivedRandom(input)
    // A small limit lets inputs of a few hundred bytes reach the size checks, which the
    // protocol's 64 KiB limit puts out of a fuzzer's reach.
    let smallLimit = Int.random(in: 2...300, using: &random)

    let events = eventsIndependentOfChunking(input, maxMessageBytes: ChatLimits.maxStreamMessageBytes, using: &random)
    let smallLimitEvents = eventsIndependentOfChunking(input, maxMessageBytes: smallLimit, using: &random)
    checkSmallLimit(smallLimitEvents, against: events, inputSize: size, limit: smallLimit)
    checkUTF8Verdict(input)
    for event in events {
        switch event {
        case .message(let message): checkRoundTrip(message)
        case .malformed(let error, let id): checkDecodeError(error, id: id)
        case .fatal: break
        }
    }
    return 0
}

/// The events of the input in one feed, after checking that every other way of feeding it agrees.
private func eventsIndependentOfChunking(
    _ input: UnsafeRawBufferPointer, maxMessageBytes: Int, using random: inout SplitMix64
) -> [ChatStreamEvent] {
    var whole = DecoderRun.whole(input, maxMessageBytes: maxMessageBytes)
    let events = whole.events
    if let fatalIndex = events.firstIndex(where: \.isFatal) {
        require(fatalIndex == events.count - 1, "nothing follows a fatal event")
    }
    let byteByByte = DecoderRun.byteByByte(input, maxMessageBytes: maxMessageBytes)
    require(exactlyEqual(byteByByte.events, events), "byte-by-byte feeding gives the events of one feed")
    let chunked = DecoderRun.randomChunks(input, maxMessageBytes: maxMessageBytes, using: &random)
    require(exactlyEqual(chunked.events, events), "random chunks give the events of one feed")

    whole.feed(input)
    whole.finish()
    require(exactlyEqual(whole.events, events + events), "after finish the decoder starts a new stream")
    return events
}

/// With a limit below the protocol's, the events are the same up to the first oversized frame,
/// where the stream ends with `too-large`; an input shorter than the limit cannot hit it.
private func checkSmallLimit(_ limited: [ChatStreamEvent], against unlimited: [ChatStreamEvent], inputSize: Int, limit: Int) {
    if exactlyEqual(limited, unlimited) { return }
    require(inputSize >= limit, "an input of \(inputSize) bytes hit a limit of \(limit)")
    require(limited.last == .fatal(.tooLarge), "a smaller limit only adds too-large")
    let before = limited.dropLast()
    require(exactlyEqual(Array(before), Array(unlimited.prefix(before.count))),
            "a smaller limit keeps the events before too-large")
}

/// The decoder's UTF-8 verdict is the standard library's. The LF fed after the input ends any line
/// or string, so a character cut short at the end of the input counts as invalid too.
private func checkUTF8Verdict(_ input: UnsafeRawBufferPointer) {
    var decoder = ChatStreamDecoder()
    let events = decoder.feed(input) + decoder.feed(CollectionOfOne(ASCII.lineFeed))
    let isUTF8 = String(validating: input, as: UTF8.self) != nil
    // An oversized frame ends the stream before the rest of it is checked.
    if events.contains(.fatal(.tooLarge)) { return }
    require(isUTF8 != events.contains(.fatal(.invalidUTF8)), "invalid-utf8 iff the stream is not UTF-8")
}

extension ChatStreamEvent {
    fileprivate var isFatal: Bool {
        if case .fatal = self { true } else { false }
    }
}
