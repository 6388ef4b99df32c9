/// One decoder fed one way, with the events it produced. Every feed checks the memory bound, the
/// property that keeps a hostile peer from making the server hold more than one message.
struct DecoderRun {
    private(set) var decoder: ChatStreamDecoder
    private(set) var events: [ChatStreamEvent] = []

    init(maxMessageBytes: Int) {
        decoder = ChatStreamDecoder(maxMessageBytes: maxMessageBytes)
    }

    /// Through the public `Collection` API, as the server feeds stream data.
    mutating func feed(_ chunk: some Collection<UInt8>) {
        events += decoder.feed(chunk)
        checkBufferBound()
    }

    /// Through the callback API that avoids collecting events in an array.
    mutating func feedWithCallback(_ chunk: UnsafeRawBufferPointer) {
        decoder.feed(chunk) { events.append($0) }
        checkBufferBound()
    }

    mutating func finish() {
        let wasFailed = decoder.hasFailed
        let ending = decoder.finish()
        require(!wasFailed || ending.isEmpty, "finish after a fatal error reports nothing")
        events += ending
        require(!decoder.hasFailed && decoder.bufferedByteCount == 0, "finish leaves a fresh decoder")
    }

    private func checkBufferBound() {
        require(decoder.bufferedByteCount < decoder.maxMessageBytes,
                "buffered \(decoder.bufferedByteCount) bytes with a limit of \(decoder.maxMessageBytes)")
        require(!decoder.hasFailed || decoder.bufferedByteCount == 0, "a failed decoder holds nothing")
    }
}
