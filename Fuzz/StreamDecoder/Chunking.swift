/// The ways one input is cut into feeds. Every way must give the events of a single feed.
extension DecoderRun {
    /// All of it at once: objects decode straight from the caller's buffer.
    static func whole(_ input: UnsafeRawBufferPointer, maxMessageBytes: Int) -> DecoderRun {
        var run = DecoderRun(maxMessageBytes: maxMessageBytes)
        run.feed(input)
        run.finish()
        return run
    }

    /// One byte per feed: every object spans feeds, every split point is taken.
    static func byteByByte(_ input: UnsafeRawBufferPointer, maxMessageBytes: Int) -> DecoderRun {
        var run = DecoderRun(maxMessageBytes: maxMessageBytes)
        for index in input.indices {
            run.feedWithCallback(UnsafeRawBufferPointer(rebasing: input[index..<(index + 1)]))
        }
        run.finish()
        return run
    }

    /// Chunks of random sizes, empty ones included, so that objects both complete within one feed
    /// and span several; every other chunk comes as a non-contiguous collection, which takes the
    /// decoder's copying path.
    static func randomChunks(
        _ input: UnsafeRawBufferPointer, maxMessageBytes: Int, using random: inout SplitMix64
    ) -> DecoderRun {
        var run = DecoderRun(maxMessageBytes: maxMessageBytes)
        var start = 0
        var isContiguous = true
        while start < input.count {
            let length = Int.random(in: 0...Self.chunkLengthLimit(using: &random), using: &random)
            let end = min(input.count, start + length)
            let chunk = UnsafeRawBufferPointer(rebasing: input[start..<end])
            if isContiguous {
                run.feed(chunk)
            } else {
                run.feed(chunk.lazy.map { $0 })
            }
            isContiguous.toggle()
            start = end
        }
        run.finish()
        return run
    }

    /// Mostly small chunks, which split objects often, and now and then a large one.
    private static func chunkLengthLimit(using random: inout SplitMix64) -> Int {
        Int.random(in: 0..<8, using: &random) == 0 ? 512 : 16
    }
}
