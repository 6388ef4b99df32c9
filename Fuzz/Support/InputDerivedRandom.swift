/// A generator seeded from the fuzz input itself (its FNV-1a hash).
///
/// Choices such as where to split a stream are then a function of the input, so a crash file
/// replays exactly, while the input stays what the target consumes: no bytes are spent on the
/// choices, which keeps seeds and regressions readable.
func inputDerivedRandom(_ input: UnsafeRawBufferPointer) -> SplitMix64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in input {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return SplitMix64(seed: hash)
}
